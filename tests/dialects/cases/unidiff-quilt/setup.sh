#!/bin/bash
# creates the tree the patch is applied to
set -e
mkdir -p $'src'
printf -- 'int main(void) {\n    return 1;\n}\n' > $'src/app.c'
