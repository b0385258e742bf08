#!/bin/bash
# creates the tree the patch is applied to
set -e
mkdir -p $'old'
printf -- 'hello there\n' > $'old/greeting.txt'
