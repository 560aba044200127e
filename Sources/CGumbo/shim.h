// Google's gumbo HTML5 parser (Debian: libgumbo-dev).
#include <gumbo.h>
