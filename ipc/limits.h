/*
 * limits.h - every limit keyward enforces, in one place.
 * Values that mirror OpenSSH's agent carry the doc/protocol.md section they come from.
 */
#ifndef KEYWARD_LIMITS_H
#define KEYWARD_LIMITS_H

/* Agent protocol (doc/protocol.md §1.3, §6.8). */
#define AGENT_MAX_FRAME            (256 * 1024)  /* payload bytes of one frame */
#define AGENT_READ_CHUNK           (64 * 1024)   /* bytes per read() from a client */
#define AGENT_MAX_INFLIGHT         16            /* pipelined requests per connection */
#define AGENT_MAX_PRINCIPALS       256           /* certificate principals (doc/protocol.md §4.3) */
#define AGENT_MAX_MPINT_BYTES      2049          /* 16384 bits plus one 0x00 (doc/protocol.md §2) */
#define AGENT_RSA_MIN_BITS         1024          /* doc/protocol.md §4.2 */
#define AGENT_RSA_MAX_BITS         16384
#define AGENT_MAX_SESSION_ID       128           /* doc/protocol.md §6.8 */
#define AGENT_MAX_BINDINGS         16            /* doc/protocol.md §6.8 */
#define AGENT_MAX_LIFETIME         (0xffffffffU) /* uint32 seconds on the wire */
#define AGENT_MAX_DEST_RULES       1024          /* destination constraints a key (doc/protocol.md §6.8) */
#define AGENT_MAX_USER_PATTERN     256           /* user pattern bytes (doc/protocol.md §6.6) */
/* Certificates in one associated-certs constraint of a PKCS#11 add
 * (doc/protocol.md §6.7): OpenSSH's agent refuses the 1025th, and so does keyward. */
#define AGENT_MAX_ASSOC_CERTS      1024
/* Not limits of the reference: they bound the work of wmatch (quadratic
 * in its two lengths) when a host certificate meets a CA hop. A DNS name
 * has at most 253 bytes. */
#define AGENT_MAX_HOSTNAME         255           /* a hop's host name */
#define AGENT_MAX_PRINCIPAL_MATCH  255           /* longer principals never match */
/* wmatch matches a pattern up to this long without allocating (every
 * pattern above, RULES_MAX_PATTERN included, is shorter), so a matcher
 * never has an allocation failure to read as "no match". */
#define WMATCH_MAX_STACK_PATTERN   1024
/* FIDO keys (doc/protocol.md §4.4, §4.7). Not limits of the reference: they keep what the
 * keyholder seals and opens in its 256 KiB secure heap (SHIELD_HEAP_SIZE)
 * to a few KiB a key, as for the other types. They bound keys the agent
 * holds (an ADD), never a public key: a host key in a session-bind or a
 * destination constraint is read with any application OpenSSH reads. A CTAP credential id (the
 * key handle) has at most 1023 bytes; an application is "ssh:" and a
 * short name in practice. */
#define AGENT_MAX_SK_APPLICATION   1024          /* application string bytes */
#define AGENT_MAX_SK_KEY_HANDLE    4096          /* key handle bytes */
#define AGENT_MAX_SK_RESERVED      1024          /* reserved string bytes */

/* ML-DSA-44 (FIPS 204 table 2; crypto/mldsa44.h). Fixed by the standard,
 * not chosen: a public key is rho and t1 (32 + 4 * 320 bytes), an expanded
 * private key rho, K, tr, s1, s2, t0 (32 + 32 + 64 + 8 * 96 + 4 * 416), a
 * signature c~, z and the hint (32 + 4 * 576 + 80 + 4). Keys are kept as
 * their 32-byte seed xi and expanded only to sign. */
#define MLDSA44_SEED_LEN           32
#define MLDSA44_RND_LEN            32            /* the signer's randomness */
#define MLDSA44_PK_LEN             1312
#define MLDSA44_SK_LEN             2560
#define MLDSA44_SIG_LEN            2420
#define MLDSA44_CTX_MAX            255           /* context: one length byte */
/* Signing rejects a candidate about three times in four; FIPS 204
 * appendix C allows a bound and asks at least 814 rounds for ML-DSA-44,
 * which fail with probability below 2^-256. */
#define MLDSA44_SIGN_MAX_ROUNDS    814
/* ssh-mldsa44-ed25519@openssh.com (OpenSSH 10.5; crypto/composite.h): the
 * public key is the ML-DSA-44 key then the Ed25519 key, the private key
 * the two 32-byte seeds, the signature ML-DSA-44's then Ed25519's. */
#define MLDSA44_ED25519_PK_LEN     (MLDSA44_PK_LEN + 32)
#define MLDSA44_ED25519_SK_LEN     (MLDSA44_SEED_LEN + 32)
#define MLDSA44_ED25519_SIG_LEN    (MLDSA44_SIG_LEN + 64)

/* A fingerprint with its NUL: at the longest "SHA512:" and 86 base64
 * characters (doc/protocol.md §4.5, keys/fphash.h). */
#define FP_TEXT_MAX                96

/* Inter-process messages: a client frame plus our own small header. */
#define IPC_HEADER_LEN             9             /* type u8, req u32, conn u32 */
#define IPC_MAX_MSG                (AGENT_MAX_FRAME + 8192) /* + a token
                                                  * request's key handle, PIN
                                                  * and provider path */
#define IPC_SOCKBUF                (2 * IPC_MAX_MSG)  /* SO_SNDBUF/SO_RCVBUF asked */

/* Resources (doc/threat-model.md, "Resources"): what one client, and all
 * clients together, may make the agent hold. A spent budget is
 * back-pressure -- stop reading from whoever holds the most -- or one
 * closed connection with a log line; never an exit. */
#define WB_MAX_LEN                 (64 * 1024 * 1024) /* any one buffer */
#define IPC_QUEUE_HIGH             (1024 * 1024) /* queued to a peer process:
                                                  * stop taking in new work */
#define MONITOR_MAX_INFLIGHT       128           /* requests at policy, all clients */
#define MONITOR_INFLIGHT_BYTES     (8 * 1024 * 1024) /* their bytes (what policy
                                                  * and the keyholder hold) */
#define MONITOR_MAX_ADDS           2             /* ADDs at policy: checking a
                                                  * constraint list costs policy
                                                  * time the client chooses */
#define CLIENT_INLINE_IN           8192          /* every client's input buffer */
#define MONITOR_INPUT_BUDGET       (16 * 1024 * 1024) /* larger input buffers
                                                  * (frames over the inline
                                                  * size), all clients */
#define MONITOR_REPLY_BUDGET       (16 * 1024 * 1024) /* replies held, all clients */
#define CLIENT_STALL_MS            10000         /* a partial frame or unsent
                                                  * reply with no progress:
                                                  * the connection is closed */
#define POLICY_MAX_PENDING         4096          /* requests policy carries; a
                                                  * compromised monitor could
                                                  * send more: not read then */
#define CLIENT_FRAME_MS            30000         /* one frame, counted from its
                                                  * first byte: a client that
                                                  * trickles bytes is closed;
                                                  * a largest frame still
                                                  * fits at about 70 kbit/s */
#define CLIENT_SHED_MIN            2             /* at the connection limit, a
                                                  * peer process (the relay of
                                                  * a forwarded host) holding
                                                  * this many or more loses
                                                  * one to make room */
#define CLIENT_EVICT_IDLE_MS       1000          /* at the connection limit, the
                                                  * longest idle one (idle at
                                                  * least this long) makes room,
                                                  * of the peer holding the most */

/* Keys held, all clients together: an add past either budget is refused
 * (SSH_AGENT_FAILURE); a re-add is charged its new size less its old. A
 * key costs the bytes its ADD sent -- private key, comment, destination
 * constraints, provider: what policy and keyholder keep of it, within a
 * small factor -- plus a fixed overhead that any key costs. OpenSSH's
 * agent takes keys until memory runs out. */
#define AGENT_MAX_KEYS             16384         /* identities held */
#define AGENT_MAX_HELD_BYTES       (32 * 1024 * 1024) /* their summed cost */
#define AGENT_KEY_OVERHEAD         1024          /* cost of any key, beyond
                                                  * its request's bytes */

/* Processes. */
#define MONITOR_MIN_NOFILE         10            /* doc/protocol.md §11.5: refuse to run below */
#define MONITOR_FD_RESERVE         10            /* doc/protocol.md §11.8: maxfds = NOFILE - this */
#define MONITOR_LISTEN_BACKLOG     128           /* listen(2) backlog of the agent socket */
#define MONITOR_PARENT_CHECK_MS    10000         /* command mode parent poll (doc/protocol.md §11.6) */
#define MONITOR_READY_MS           60000         /* the starter waits this long for a
                                                  * started agent to serve (keyward(1)) */
#define LOG_LINE_MAX               1024          /* one relayed log line */
#define KEYHOLDER_WORKERS          2             /* signing threads (2 cores) */
#define CONFIRM_TIMEOUT_DEFAULT    60            /* seconds a prompt may stay open */
#define CONFIRM_TIMEOUT_MAX        86400         /* -O confirm-timeout= at most */

/* Keyholder signing lanes: an RSA signature costs about the cube of the
 * modulus size (RSA-16384 0.3 s here, 2 s on a slow machine), so larger
 * keys sign on threads of their own and never delay an Ed25519, ECDSA or
 * small RSA signature, which then waits for a CPU, not for a signature.
 * As many as the fast lane: with one, big-RSA throughput halved. */
#define KEYHOLDER_FAST_RSA_BITS    4096          /* larger RSA: the slow lane */
#define KEYHOLDER_SLOW_WORKERS     2             /* threads of the slow lane */
#define KEYHOLDER_RSA_BLINDINGS    16            /* RSA blinding pairs kept
                                                  * between signatures, each
                                                  * saving a 3072-bit modular
                                                  * inverse, ~0.4 ms
                                                  * (keyholder/rsasign.c) */
#define KEYHOLDER_BATCH            64            /* messages read before the
                                                  * workers are woken to what
                                                  * they brought (main.c) */

/* FIDO token helper (keyward-sk, wire/token.h): one request, one reply. */
#define TOKEN_MAX_APPLICATION      1024          /* "ssh:..." or a web origin */
#define TOKEN_MAX_KEY_HANDLE       1024          /* CTAP2 credential ids are
                                                  * at most 1023 bytes */
#define TOKEN_MAX_DATA             AGENT_MAX_FRAME /* data of one sign request */
#define TOKEN_MAX_PIN              255           /* CTAP2 PINs: 63 bytes */
#define TOKEN_MAX_REQUEST          (1 + 4 + 4 + TOKEN_MAX_APPLICATION + 1 + \
                                    4 + TOKEN_MAX_KEY_HANDLE + \
                                    4 + TOKEN_MAX_DATA + 4 + TOKEN_MAX_PIN)
#define TOKEN_MAX_SIG_PART         64            /* Ed25519: 64; P-256 r, s: 32 */
#define TOKEN_MAX_REPLY            (1 + 4 + 1 + 4 + 2 * (4 + TOKEN_MAX_SIG_PART))
#define TOKEN_MAX_DEVICES          64            /* FIDO devices looked at */
#define TOKEN_LOCK_TRIES           20            /* a token another process
                                                  * holds (flock) is tried this
                                                  * often, before the sandbox */
#define TOKEN_LOCK_WAIT_MS         100           /* the pause after try N is N
                                                  * times this: 19 s in all, as
                                                  * libfido2's own back end */

/* Token helpers (broker/main.c). One keyward-sk process per
 * signature; a touch that never comes ends in a refusal. */
#define TOKEN_MAX_HELPERS          8             /* at once; more: refused */
#define TOKEN_MAX_PER_CONN         2             /* at once for one client: a
                                                  * forwarded server cannot
                                                  * hold every helper */
#define TOKEN_MAX_PER_HOP          2             /* at once for all clients
                                                  * forwarded from one host
                                                  * (its first session-bind,
                                                  * as PROMPT_MAX_PER_HOP);
                                                  * more: refused */
#define TOKEN_MAX_FORWARDED        4             /* ... and for all forwarding
                                                  * hosts together: the other
                                                  * helpers are the user's
                                                  * local clients' */
#define TOKEN_TOUCH_TIMEOUT_DEFAULT 60           /* seconds (-O touch-timeout=) */
#define TOKEN_MAX_PATH             4096          /* a provider path */
#define TOKEN_MAX_PROVIDERS        8             /* PKCS#11 providers loaded */
#define TOKEN_P11_FINALIZE_MS      1000          /* a stopped PKCS#11 helper's
                                                  * time to C_Finalize */
#define TOKEN_P11_QUEUE            16            /* requests waiting for one
                                                  * provider's helper; more:
                                                  * refused */

/* PKCS#11 token helper (keyward-pkcs11, wire/pkcs11.h): one long-lived
 * process per provider, one datagram a request and a reply. A listing
 * must fit one SOCK_SEQPACKET datagram (chan_setup_fd's IPC_SOCKBUF). */
#define P11_MAX_PIN                255           /* a user or context PIN */
#define P11_MAX_DATA               AGENT_MAX_FRAME /* data of one sign request */
#define P11_MAX_KEYS               32            /* keys listed, all tokens; more:
                                                  * logged and left out */
#define P11_MAX_SLOTS              16            /* slots with a token looked at */
#define P11_MAX_OBJECTS            128           /* private keys looked at a token */
#define P11_MAX_ATTR               4096          /* one attribute value's bytes */
#define P11_MAX_LABEL              256           /* CKA_LABEL bytes kept (cut at a
                                                  * UTF-8 character boundary) */
#define P11_MAX_KEY_BLOB           2304          /* RSA-16384: 4+7 + 4+8 + 4+2049 */
#define P11_MAX_SIG_BLOB           2304          /* RSA-16384: 4+12 + 4+2048 */
#define P11_MAX_RAW_SIG            2048          /* what C_Sign may return */
#define P11_MAX_REQUEST            (1 + 4 + 4 + 4 + P11_MAX_DATA + 4 + P11_MAX_PIN)
#define P11_MAX_REPLY              (1 + 4 + 4 + P11_MAX_KEYS * \
                                    (4 + P11_MAX_KEY_BLOB + 4 + P11_MAX_LABEL + 4))
#define P11_MAX_CONF               (64 * 1024)   /* softhsm2.conf bytes read */
#define P11_MAX_STORES             8             /* module stores (read-write
                                                  * under Landlock) a helper keeps */

/* The SIGSYS reporter (seccomp/trap.c): syscall numbers it names (every
 * x86_64 and arm64 syscall is below it; above, the number alone). */
#define SANDBOX_SYSCALL_NAMES      1024

/* Caller identity (keyward-peer, wire/peer.h): what the inspector reads
 * of one connection's peer and answers; fixed buffers, so the work of one
 * request is bounded whatever the peer's /proc holds. */
#define PEER_MAX_PID               4194304       /* the kernel's PID_MAX_LIMIT */
#define PEER_MAX_EXE               4096          /* an executable's path (PATH_MAX) */
#define PEER_MAX_CMDLINE           2048          /* argv joined with spaces, cut */
#define PEER_MAX_ARGV0             256           /* an ancestor's argv[0], cut */
#define PEER_MAX_ANCESTORS         8             /* parents followed up the chain */
#define PEER_MAX_PROCFILE          4096          /* bytes read of one /proc text
                                                  * file (stat, status, fdinfo) */
#define PEER_MAX_REQUEST           (1 + 4 + 4 + 4 + 1)
#define PEER_MAX_REPLY             (1 + 4 + 4 + 4 + PEER_MAX_EXE + \
                                    4 + PEER_MAX_CMDLINE + 4 + \
                                    PEER_MAX_ANCESTORS * (4 + 4 + PEER_MAX_EXE + \
                                    4 + PEER_MAX_ARGV0))
#define PEER_MAX_QUEUE             32            /* requests the monitor has at
                                                  * the inspector; the next client
                                                  * waits for room (back-pressure) */
#define PEER_TIMEOUT_MS            2000          /* a connection whose answer has
                                                  * not come by then proceeds as
                                                  * "unavailable" */

/* Lock (doc/protocol.md §5.8). */
#define LOCK_SALT_LEN              16
#define LOCK_HASH_LEN              32
#define LOCK_KDF_ITERATIONS        20000         /* PBKDF2-HMAC-SHA256 */
#define LOCK_FAIL_STEP_MS          100           /* delay grows 0.1 s a failure */
#define LOCK_FAIL_MAX              100           /* ... up to 10 s */

/* Confirm prompts (doc/protocol.md §6.3). */
#define PROMPT_MAX_TEXT            2048
#define PROMPT_LINE_MAX            76            /* bytes of a caller's line: the
                                                  * default askpass (x11-ssh-askpass,
                                                  * 7 px a character) stays ~600 px */
#define PROMPT_MAX_OUTPUT          1024          /* bytes read from askpass */
#define PROMPT_MAX_CONCURRENT      16
#define PROMPT_MAX_PER_HOP         2             /* prompts (confirm and PIN)
                                                  * open at once for clients
                                                  * forwarded from one host;
                                                  * more wait their turn
                                                  * (policy/sign.c) */
#define PROMPT_MAX_WAIT_PER_HOP    8             /* ... at most this many; more
                                                  * are refused at once, so one
                                                  * host never holds the
                                                  * requests at policy
                                                  * (MONITOR_MAX_INFLIGHT) */
#define PROMPT_MAX_FORWARDED       8             /* prompts open at once for all
                                                  * forwarding hosts together
                                                  * (more wait); the rest of
                                                  * PROMPT_MAX_CONCURRENT are
                                                  * the user's local clients' */

/* Rules files (rules/rules.h, keyward(5)): read whole before any
 * sandbox, refused whole when one line is wrong. A pattern is bounded so
 * wmatch's work (its two lengths multiplied) stays small per rule. */
#define RULES_MAX_FILE             (64 * 1024)   /* bytes of one rules file */
#define RULES_MAX_LINE             1024          /* bytes of one line, without
                                                  * its newline */
#define RULES_MAX_RULES            256           /* rules in one file */
#define RULES_MAX_PATTERNS         32            /* patterns in one rule, all
                                                  * its lists together */
#define RULES_MAX_PATTERN          255           /* bytes of one pattern */
#define RULES_MAX_REMEMBER         86400         /* confirm remember= seconds */
#define SOCKETS_MAX                8             /* named sockets (keyward(5)
                                                  * "socket"), besides the main
                                                  * one; each is one fd of the
                                                  * monitor's connection budget */
#define SOCKET_NAME_MAX            32            /* bytes of a socket's name */
#define SOCKET_PATH_MAX            107           /* bytes of its path: sun_path
                                                  * less the NUL */
#define RULES_ERR_MAX              512           /* one error message */
#define RULES_READ_MSG_MAX         (TEXT_TERM_MAX + 128) /* why a rules file
                                                  * could not be read, its
                                                  * path escaped */
#define RULES_MAX_REMEMBERED       256           /* remembered confirmations; the
                                                  * oldest is forgotten first */

/* keyward-ctl's answers (wire/conns.h, POLICY_EXTENSION in wire/agent.h):
 * one agent frame each, with room for the reply's type and name. A
 * connection listing that would not fit lists the first ones and says
 * how many there were. */
#define CONNS_MAX_BODY             (AGENT_MAX_FRAME - 256) /* connections body */
#define POLICY_MAX_SHOW            (AGENT_MAX_FRAME - 256) /* canonical rules text */
#define CTL_REPLY_TIMEOUT_MS       10000         /* keyward-ctl waits this long for
                                                  * an answer, then gives up */

/* Untrusted text (ipc/text.h). A comment may be a whole frame long; what
 * we show of it is bounded so one string cannot crowd out a record. */
#define TEXT_JSON_KEEP             4096          /* input bytes of one string in JSON */
#define TEXT_TERM_MAX              2048          /* buffer for one string, terminal form */

/* The audit trail (auditor/, crypto/auditchain.h, keyward(1)).
 * Every record carries its sequence number and the SHA-256 of the line
 * before it; with -O audit-key= the auditor appends a seal (an HMAC with
 * a key that evolves one-way after each use) after AUDIT_SEAL_RECORDS
 * records, or AUDIT_SEAL_INTERVAL_S after the first unsealed one, and at
 * exit. Refusals, listings and session-binds of one kind from one origin
 * are coalesced (policy/audit_repeats.c): the first in each
 * AUDIT_COALESCE_WINDOW_S window is recorded whole, the rest counted in one record at its end;
 * AUDIT_COALESCE_SLOTS kinds x origins are tracked at once, and a new one
 * closes the oldest window early; one origin's first
 * AUDIT_COALESCE_PER_ORIGIN kinds are counted apart, its others together.
 * So, while the table has room, one origin (a forwarded server is one:
 * the user's ssh and its first binding) adds at most
 * 2 * (AUDIT_COALESCE_PER_ORIGIN + 1) lines per window, whatever it
 * sends, and each further origin (a local process) can close one window
 * early; signatures made, keys added
 * and removed are always recorded one by one. */
#define AUDIT_SEAL_RECORDS         256           /* records between seals */
#define AUDIT_SEAL_INTERVAL_S      60            /* at most this long unsealed */
#define AUDIT_MAX_EPOCH            (1UL << 24)   /* seals one key can make; the
                                                  * verifier derives at most this
                                                  * many keys */
#define AUDIT_COALESCE_WINDOW_S    10            /* one window of refusals */
#define AUDIT_COALESCE_SLOTS       32            /* kinds x origins tracked */
#define AUDIT_COALESCE_PER_ORIGIN  8             /* kinds of one origin apart;
                                                  * its others share one more */
#define AUDIT_TAG_MAX              32            /* -O audit-tag= bytes */
#define AUDIT_SYSLOG_WAIT_MS       2000          /* a full /dev/log queue: wait
                                                  * this long, then the record
                                                  * counts as not written */

/* The session watcher (session/main.c, wire/session.h). */
#define SESSION_ID_MAX             64            /* a logind session id's bytes
                                                  * (logind's are a few; more is
                                                  * refused, not cut) */
#define NOTICE_PER_HOST            3             /* desktop notices of forwarded
                                                  * signatures per forwarding host
                                                  * in NOTICE_WINDOW_S: a server
                                                  * cannot flood the desktop */
#define NOTICE_WINDOW_S            60
#define NOTICE_HOSTS               16            /* forwarding hosts counted at
                                                  * once; with all taken and none
                                                  * expired, a notice is dropped */
#define SESSION_BUS_TIMEOUT_MS     5000          /* a call to logind at start:
                                                  * a bus without logind may try
                                                  * to activate it; the agent
                                                  * serves meanwhile */
#define SESSION_IDLE_MAX_S         86400         /* -O session-idle= at most a
                                                  * day: longer is no timeout */

/* The argument lists keyward gives its helpers (wire/args.h). */
#define HELPER_ARGS_MAX            32            /* argv slots of the longest
                                                  * list (keyward-policy's, 22
                                                  * words), its name and NULL,
                                                  * with room for a few more
                                                  * options; each encoder checks
                                                  * at compile time it fits */
#define HELPER_ARGS_NUMS           8             /* numbers one list holds as
                                                  * text (policy's: 5) */

#endif
