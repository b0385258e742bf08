#!/bin/bash
# creates the tree the patch is applied to
set -e
printf -- 'A\n' > $'file1'
