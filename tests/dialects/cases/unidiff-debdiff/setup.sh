#!/bin/bash
# creates the tree the patch is applied to
set -e
mkdir -p $'debian'
printf -- 'pkg (1.0-1) unstable; urgency=medium\n\n  * Initial release.\n' > $'debian/changelog'
