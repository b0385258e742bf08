#!/bin/bash
# creates the tree the patch is applied to
set -e
printf -- 'remember\n' > $'memo'
printf -- 'remember\n' > $'memo-draft'
