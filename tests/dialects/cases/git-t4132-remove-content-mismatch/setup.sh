#!/bin/bash
# creates the tree the patch is applied to
set -e
printf -- 'goodbye\n' > $'greeting.txt'
