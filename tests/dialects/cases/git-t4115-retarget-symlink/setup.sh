#!/bin/bash
# creates the tree the patch is applied to
set -e
ln -s $'releases/v1' $'latest'
