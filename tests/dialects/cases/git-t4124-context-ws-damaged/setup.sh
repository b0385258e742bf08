#!/bin/bash
# creates the tree the patch is applied to
set -e
printf -- 'alpha  \nbeta\ngamma\t\n' > $'notes'
