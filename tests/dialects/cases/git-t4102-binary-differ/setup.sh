#!/bin/bash
# creates the tree the patch is applied to
set -e
printf -- '\000\001\002binary\377' > $'logo.bin'
