#!/bin/bash
# creates the tree the patch is applied to
set -e
mkdir -p $'foo'
printf -- 'if only I knew\n' > $'foo/baz'
printf -- 'hi planet\n' > $'bar'
