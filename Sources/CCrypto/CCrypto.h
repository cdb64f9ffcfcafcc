#ifndef MEDIACACHE_CCRYPTO_H
#define MEDIACACHE_CCRYPTO_H
#include <openssl/evp.h>
#include <openssl/crypto.h>
#endif
