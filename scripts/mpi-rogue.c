/* A hostile MPI rank for scripts/test-mpi.sh: it speaks (or breaks) the protocol of
 * `nqueens count --mpi` (src/runner/mpi/wire.rs) so the test can check that an nqueens
 * rank facing it ends with one line and a non-zero exit, never a panic, a hang or a count.
 *
 *   mpi-rogue MODE [N PLAN_VERSION PLAN_ID_HEX UNITS PROGRAM]
 *
 * As a computing rank (rank >= 1, nqueens is rank 0), MODE is one of:
 *   old       the four bare u64 an nqueens before the protocol sent first
 *   empty     a 0-byte message          huge     a 4096-byte message
 *   protocol  a hello of protocol 99    threads0 accepts the plan with 0 threads
 *   stray     returns a unit it was never handed
 *   twice     returns its first unit twice
 *   refuse    refuses the plan with a reason holding a newline and an escape sequence,
 *             then ends as the protocol says (the only mode that ends by itself)
 * As rank 0 (nqueens ranks compute), MODE is one of:
 *   r0-short  an offer cut to 16 bytes
 *   r0-unit   a valid offer (the arguments after MODE), then a unit id outside the plan
 *   r0-nogo   a valid offer, then a unit where begin or end belongs
 * Every mode but refuse then waits for messages until the job is ended.
 * Build: mpicc -O1 -o mpi-rogue scripts/mpi-rogue.c */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAGIC 0x6e716d7000000000ULL
/* The exchange's version (wire::PROTOCOL): 2 since unit messages carry up to 32 units. */
#define PROTOCOL 2
enum { HELLO = 1, OFFER, CANCEL, ACCEPT, REFUSE, GO, END, READY, DONE, ABANDONED, UNIT, QUIT };

static int rank, size;

static void put(unsigned char *b, int i, uint64_t w) {
    for (int k = 0; k < 8; k++) b[8 * i + k] = (unsigned char)(w >> (8 * k));
}

static uint64_t get(const unsigned char *b, int i) {
    uint64_t w = 0;
    for (int k = 7; k >= 0; k--) w = (w << 8) | b[8 * i + k];
    return w;
}

static void say(int to, uint64_t kind, const uint64_t *w, int n, const char *text) {
    unsigned char buf[2048];
    put(buf, 0, MAGIC | kind);
    for (int i = 0; i < n; i++) put(buf, 1 + i, w[i]);
    int len = 8 * (1 + n);
    if (text) {
        memcpy(buf + len, text, strlen(text));
        len += (int)strlen(text);
    }
    MPI_Send(buf, len, MPI_BYTE, to, 0, MPI_COMM_WORLD);
}

static int hear(int from, unsigned char *buf, int *source) {
    MPI_Status st;
    int count;
    MPI_Recv(buf, 4096, MPI_BYTE, from, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_BYTE, &count);
    if (source) *source = st.MPI_SOURCE;
    return count;
}

static void node_split(void) {
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
}

static void wait_forever(void) {
    unsigned char buf[4096];
    for (;;) hear(MPI_ANY_SOURCE, buf, NULL);
}

int main(int argc, char **argv) {
    unsigned char buf[4096];
    const char *mode = argc > 1 ? argv[1] : "";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    uint64_t one = 1, proto = PROTOCOL;
    if (rank > 0) {
        if (!strcmp(mode, "old")) {
            uint64_t w[4] = {0, 0, 0, 0};
            MPI_Send(w, 4, MPI_UINT64_T, 0, 0, MPI_COMM_WORLD);
            wait_forever();
        }
        if (!strcmp(mode, "empty")) {
            MPI_Send(buf, 0, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
            wait_forever();
        }
        if (!strcmp(mode, "huge")) {
            memset(buf, 0, sizeof buf);
            put(buf, 0, MAGIC | HELLO);
            MPI_Send(buf, 4096, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
            wait_forever();
        }
        if (!strcmp(mode, "protocol")) proto = 99;
        say(0, HELLO, &proto, 1, NULL);
        if (proto != PROTOCOL) wait_forever();
        node_split();
        hear(0, buf, NULL); /* the offer */
        if (!strcmp(mode, "refuse")) {
            say(0, REFUSE, NULL, 0, "evil\n\x1b[2Jreason");
            hear(0, buf, NULL); /* end */
            MPI_Finalize();
            return 0;
        }
        uint64_t units = get(buf, 5);
        uint64_t accept[2] = {!strcmp(mode, "threads0") ? 0 : 1, 0};
        say(0, ACCEPT, accept, 2, NULL);
        hear(0, buf, NULL); /* go */
        say(0, READY, NULL, 0, NULL);
        hear(0, buf, NULL); /* a unit */
        uint64_t id = get(buf, 1);
        uint64_t done[3] = {!strcmp(mode, "stray") ? units + 7 : id, 0, 0};
        say(0, DONE, done, 3, NULL);
        if (!strcmp(mode, "twice")) {
            hear(0, buf, NULL);
            say(0, DONE, done, 3, NULL);
        }
        wait_forever();
    }
    /* Rank 0. */
    for (int r = 1; r < size; r++) hear(r, buf, NULL); /* hellos */
    node_split();
    uint64_t offer[5] = {PROTOCOL, 0, 0, 0, 0};
    const char *program = argc > 6 ? argv[6] : "0";
    if (argc > 6) {
        offer[1] = strtoull(argv[2], NULL, 10);
        offer[2] = strtoull(argv[3], NULL, 10);
        offer[3] = strtoull(argv[4], NULL, 16);
        offer[4] = strtoull(argv[5], NULL, 10);
    }
    for (int r = 1; r < size; r++) {
        if (!strcmp(mode, "r0-short")) {
            say(r, OFFER, &one, 1, NULL);
        } else {
            say(r, OFFER, offer, 5, program);
        }
    }
    if (!strcmp(mode, "r0-short")) wait_forever();
    for (int r = 1; r < size; r++) hear(r, buf, NULL); /* answers */
    for (int r = 1; r < size; r++) {
        if (!strcmp(mode, "r0-nogo")) {
            say(r, UNIT, &one, 1, NULL);
        } else {
            say(r, GO, NULL, 0, NULL);
        }
    }
    if (!strcmp(mode, "r0-nogo")) wait_forever();
    for (;;) {
        int source;
        hear(MPI_ANY_SOURCE, buf, &source);
        uint64_t outside = offer[4] + 5;
        say(source, UNIT, &outside, 1, NULL);
    }
}
