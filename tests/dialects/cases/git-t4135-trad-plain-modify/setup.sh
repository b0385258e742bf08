#!/bin/bash
# creates the tree the patch is applied to
set -e
printf -- 'preimage\n' > $'after.txt'
