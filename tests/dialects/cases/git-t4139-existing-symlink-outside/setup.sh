#!/bin/bash
# creates the tree the patch is applied to
set -e
printf -- 'outside\n' > $'../outside.txt'
ln -s $'..' $'up'
