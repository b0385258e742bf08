#!/bin/bash
# creates the tree the patch is applied to
set -e
printf -- 'one\ntwo\nthree\n' > $'unix.txt'
