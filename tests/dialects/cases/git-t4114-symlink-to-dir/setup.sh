#!/bin/bash
# creates the tree the patch is applied to
set -e
ln -s $'bar' $'foo'
printf -- 'hi planet\n' > $'bar'
