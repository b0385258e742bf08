#!/bin/bash
# creates the tree the patch is applied to
set -e
printf -- 'Original text of the page.\n\nThis line will change.\n\nStays the same.\n' > $'page.txt'
