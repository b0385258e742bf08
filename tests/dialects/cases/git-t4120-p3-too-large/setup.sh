#!/bin/bash
# creates the tree the patch is applied to
set -e
printf -- 'A\n' > $'file1'
mkdir -p $'sub'
printf -- 'A\n' > $'sub/file1'
