#!/bin/bash
# creates the tree the patch is applied to
set -e
printf -- 'one\ntwo\n' > $'tail.txt'
