#!/bin/bash
# creates the tree the patch is applied to
set -e
mkdir -p $'d'
printf -- 'one\n' > $'d/one.txt'
mkdir -p $'d'
printf -- 'two\n' > $'d/two.txt'
