#!/bin/bash
# creates the tree the patch is applied to
set -e
printf -- 'already here\n' > $'greeting.txt'
