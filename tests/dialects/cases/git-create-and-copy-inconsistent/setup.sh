#!/bin/bash
# creates the tree the patch is applied to
set -e
printf -- '#!/bin/sh\n# prints the build number\nset -e\nn=$(cat BUILD)\necho "build $n"\n' > $'build.sh'
chmod 755 $'build.sh'
