#!/bin/bash
# creates the tree the patch is applied to
set -e
printf -- 'word 01\nword 02\nword 03\nword 04\nword 05\nword 06\nword 07\nword 08\nword 09\nword 10\nword 11\nword 12\nword 13\nword 14\nword 15\nword 16\nword 17\nword 18\nword 19\nword 20\nword 21\nword 22\nword 23\nword 24\nword 25\nword 26\nword 27\nword 28\nword 29\nword 30\n' > $'words'
