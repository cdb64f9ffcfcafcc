#ifndef MEDIACACHE_CARCHIVE_H
#define MEDIACACHE_CARCHIVE_H
#include <archive.h>
#include <archive_entry.h>
#endif
