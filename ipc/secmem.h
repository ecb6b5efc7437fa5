/*
 * secmem.h - memory for secrets that must outlive a stack frame: the
 * keyholder's receive buffer, the token helpers' request buffers.
 */
#ifndef KEYWARD_SECMEM_H
#define KEYWARD_SECMEM_H

#include <stddef.h>

/* An anonymous read-write mapping of len bytes, kept out of core dumps
 * (MADV_DONTDUMP: fatal if refused) and locked in memory when the
 * RLIMIT_MEMLOCK allows (else a warning naming what it holds), each page
 * as it is first touched (MLOCK_ONFAULT), so untouched pages cost no
 * memory. Never
 * unmapped: it lives as long as the process. */
void *secret_map(size_t len, const char *what);

#endif
