#!/bin/bash
# creates the tree the patch is applied to
set -e
mkdir -p $'foo'
printf -- 'hello world\n' > $'foo/baz'
printf -- 'hi planet\n' > $'bar'
