#!/bin/bash
# creates the tree the patch is applied to
set -e
mkdir -p $'has spaces'
printf -- 'Original text of the page.\n\nThis line will change.\n\nStays the same.\n' > $'has spaces/my page.txt'
