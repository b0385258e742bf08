#!/bin/bash
# creates the tree the patch is applied to
set -e
printf -- 'hello world\n' > $'foo'
printf -- 'hi planet\n' > $'bar'
