#!/bin/bash
# creates the tree the patch is applied to
set -e
printf -- 'b\nc\nd\ne\nf\ng\nh\ni\nj\n' > $'victim'
