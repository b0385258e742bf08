#!/bin/bash
# creates the tree the patch is applied to
set -e
printf -- 'one\r\ntwo\r\nthree\r\n' > $'dos.txt'
