#!/bin/bash
# creates the tree the patch is applied to
set -e
mkdir -p $'docs'
printf -- 'Original text of the page.\n\nThis line will change.\n\nStays the same.\n' > $'docs/page.txt'
