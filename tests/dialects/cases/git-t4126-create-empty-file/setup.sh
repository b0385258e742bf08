#!/bin/bash
# creates the tree the patch is applied to
set -e
