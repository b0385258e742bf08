#!/bin/bash
# creates the tree the patch is applied to
set -e
printf -- 'mercury\nvenus\nearth\nmars\njupiter\nsaturn\nuranus\nneptune\npluto?\nceres\neris\nhaumea\nmakemake\n' > $'planets'
