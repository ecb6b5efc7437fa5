/*
 * broker.h - keyward-broker's state, shared by its three files: main.c
 * (the loop, policy's messages, provider paths), sk.c (FIDO signatures)
 * and p11.c (PKCS#11 providers).
 */
#ifndef KEYWARD_BROKER_H
#define KEYWARD_BROKER_H

#include "ipc/buf.h"
#include "ipc/chan.h"
#include "ipc/limits.h"
#include "wire/broker.h"

#include <stdint.h>
#include <sys/types.h>

struct job {
	uint32_t req;
	pid_t pid;              /* 0: the slot is free */
	int fd;                 /* the helper's socket */
	uint64_t deadline_ms;
};

struct p11_queued {
	uint32_t req;
	struct wb request;      /* may hold a PIN: wiped */
};

/* A PKCS#11 provider's helper; path[0] == 0: the slot is free. */
struct prov {
	char path[TOKEN_MAX_PATH];
	pid_t pid;
	int fd;
	uint32_t busy;          /* the request at the helper now, 0: none */
	uint64_t deadline_ms;
	struct p11_queued q[TOKEN_P11_QUEUE];
	size_t nq;
};

struct broker {
	struct chan c;
	struct job jobs[TOKEN_MAX_HELPERS];
	struct prov provs[TOKEN_MAX_PROVIDERS];
	long touch_ms;
	int debug;
	struct wb out;
	uint8_t buf[IPC_MAX_MSG + 1];
};
extern struct broker B;


void send_policy(void);                 /* B.out to policy, or exit */
void answer_fail(uint32_t req, enum tk_fail why);

/* sk.c */
void sk_start(uint32_t req, struct slice provider, struct slice request);
struct job *sk_job(uint32_t req);
void sk_end(struct job *j);
void sk_from_helper(struct job *j);
void sk_deadlines(uint64_t now, int *timeout);

/* p11.c */
struct prov *prov_named(struct slice path);
void prov_start(uint32_t req, struct slice provider, struct slice login);
void prov_queue(struct prov *v, uint32_t req, struct slice request);
void prov_end(struct prov *v, enum tk_fail why, int tell);
void prov_from(struct prov *v);
void prov_cancel(uint32_t req);
void prov_deadlines(uint64_t now, int *timeout);

#endif
