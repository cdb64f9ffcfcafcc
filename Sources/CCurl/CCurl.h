#ifndef MEDIACACHE_CCURL_H
#define MEDIACACHE_CCURL_H
#include <curl/curl.h>
#endif
