/*
 * The NATS reference of issue #12: request/reply through a local
 * nats-server, requester and responder in two processes, with NATS's own
 * C client (nats.c, Debian's libnats-dev). wire-benchmarks' `process` mode
 * runs it beside the bridge, in the same run, with the same payload sizes.
 * Benchmark code only. nats-benchmarks runs it beside FareLens's NATS
 * transport (issue #57): request/reply, and the JetStream publish floor.
 *
 *   nats-reference respond URL SUBJECT REPLY_BYTES
 *       answers every request on SUBJECT with REPLY_BYTES bytes; prints
 *       "listening" once subscribed.
 *   nats-reference latency URL SUBJECT REQUEST_BYTES COUNT
 *       COUNT sequential natsConnection_Request calls; prints
 *       "p50_ns p99_ns".
 *   nats-reference pipelined URL SUBJECT REQUEST_BYTES TOTAL IN_FLIGHT
 *       TOTAL requests with IN_FLIGHT outstanding (PublishRequest to one
 *       reply subject; each reply sends the next); prints "ns_per_request".
 *   nats-reference jspublish URL STREAM SUBJECT BYTES COUNT [ids]
 *       the JetStream publish floor: creates STREAM (file storage) on
 *       SUBJECT if missing, then COUNT js_PublishAsync calls and waits
 *       for every acknowledgement; prints "ns_per_message". With "ids",
 *       each message carries a unique Nats-Msg-Id, as FareLens's do.
 *   nats-reference version
 *       prints the client library's version.
 *
 * Build: Benchmarks/nats-reference/build.sh
 */
#include <nats/nats.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void fail(const char *what, natsStatus status) {
    fprintf(stderr, "nats-reference: %s: %s\n", what, natsStatus_GetText(status));
    exit(1);
}

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* Publishes are written at once (natsOptions_SetSendAsap) unless
 * NATS_REFERENCE_BUFFERED is set: by default nats.c leaves them to its
 * flusher thread, which measured about 1 ms a round trip here (p50 990 µs,
 * against 212–217 µs sent at once). Also tried, no better (2026-11-23): a
 * responder reading a synchronous subscription (218–222 µs) and the old
 * request style (212–213 µs). */
static natsConnection *connect_to(const char *url) {
    natsOptions *options = NULL;
    natsStatus status = natsOptions_Create(&options);
    if (status == NATS_OK) status = natsOptions_SetURL(options, url);
    if (status == NATS_OK) status = natsOptions_SetSendAsap(options, getenv("NATS_REFERENCE_BUFFERED") == NULL);
    if (status != NATS_OK) fail("options", status);
    natsConnection *connection = NULL;
    if ((status = natsConnection_Connect(&connection, options)) != NATS_OK) fail("connect", status);
    natsOptions_Destroy(options);
    return connection;
}

/* respond */
static char *reply_bytes;
static int reply_length;

static void on_request(natsConnection *connection, natsSubscription *subscription, natsMsg *message, void *closure) {
    (void)subscription; (void)closure;
    const char *reply = natsMsg_GetReply(message);
    if (reply != NULL) natsConnection_Publish(connection, reply, reply_bytes, reply_length);
    natsMsg_Destroy(message);
}

static int respond(const char *url, const char *subject, int bytes) {
    reply_length = bytes;
    reply_bytes = calloc(1, bytes > 0 ? bytes : 1);
    natsConnection *connection = connect_to(url);
    natsSubscription *subscription = NULL;
    natsStatus status = natsConnection_Subscribe(&subscription, connection, subject, on_request, NULL);
    if (status != NATS_OK) fail("subscribe", status);
    if ((status = natsConnection_Flush(connection)) != NATS_OK) fail("flush", status);
    printf("listening\n");
    fflush(stdout);
    /* Answers until the parent closes stdin. */
    while (getchar() != EOF) {}
    natsSubscription_Destroy(subscription);
    natsConnection_Destroy(connection);
    return 0;
}

/* latency */
static int compare(const void *a, const void *b) {
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

static int latency(const char *url, const char *subject, int bytes, int count) {
    natsConnection *connection = connect_to(url);
    char *request = calloc(1, bytes > 0 ? bytes : 1);
    long long *samples = malloc(sizeof(long long) * count);
    for (int i = 0; i < count; i++) {
        natsMsg *reply = NULL;
        long long start = now_ns();
        natsStatus status = natsConnection_Request(&reply, connection, subject, request, bytes, 10000);
        samples[i] = now_ns() - start;
        if (status != NATS_OK) fail("request", status);
        natsMsg_Destroy(reply);
    }
    qsort(samples, count, sizeof(long long), compare);
    printf("%lld %lld\n", samples[count / 2], samples[(count * 99) / 100]);
    natsConnection_Destroy(connection);
    return 0;
}

/* pipelined */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done = PTHREAD_COND_INITIALIZER;
static long sent, received, total;
static const char *request_subject, *reply_subject;
static char *request_bytes;
static int request_length;

static void on_reply(natsConnection *connection, natsSubscription *subscription, natsMsg *message, void *closure) {
    (void)subscription; (void)closure;
    natsMsg_Destroy(message);
    pthread_mutex_lock(&lock);
    received++;
    int send_next = sent < total;
    if (send_next) sent++;
    if (received == total) pthread_cond_signal(&done);
    pthread_mutex_unlock(&lock);
    if (send_next) natsConnection_PublishRequest(connection, request_subject, reply_subject, request_bytes, request_length);
}

static int pipelined(const char *url, const char *subject, int bytes, long count, int in_flight) {
    natsConnection *connection = connect_to(url);
    request_subject = subject;
    request_length = bytes;
    request_bytes = calloc(1, bytes > 0 ? bytes : 1);
    natsInbox *inbox = NULL;
    natsStatus status = natsInbox_Create(&inbox);
    if (status != NATS_OK) fail("inbox", status);
    reply_subject = inbox;
    natsSubscription *subscription = NULL;
    if ((status = natsConnection_Subscribe(&subscription, connection, reply_subject, on_reply, NULL)) != NATS_OK) fail("subscribe", status);
    if ((status = natsConnection_Flush(connection)) != NATS_OK) fail("flush", status);
    total = count;
    long long start = now_ns();
    pthread_mutex_lock(&lock);
    sent = in_flight < count ? in_flight : count;
    pthread_mutex_unlock(&lock);
    for (long i = 0; i < (in_flight < count ? in_flight : count); i++) {
        natsConnection_PublishRequest(connection, subject, reply_subject, request_bytes, bytes);
    }
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 120; /* every wait has a bound */
    pthread_mutex_lock(&lock);
    while (received < total) {
        if (pthread_cond_timedwait(&done, &lock, &until) != 0) {
            fprintf(stderr, "nats-reference: %ld of %ld replies within 120 s\n", received, total);
            exit(1);
        }
    }
    pthread_mutex_unlock(&lock);
    printf("%.1f\n", (double)(now_ns() - start) / (double)count);
    natsSubscription_Destroy(subscription);
    natsConnection_Destroy(connection);
    return 0;
}

/* jspublish */
static int jspublish(const char *url, const char *stream, const char *subject, int bytes, long count, int with_ids) {
    natsConnection *connection = connect_to(url);
    jsOptions options;
    jsOptions_Init(&options);
    options.PublishAsync.MaxPending = 4096;
    jsCtx *js = NULL;
    natsStatus status = natsConnection_JetStream(&js, connection, &options);
    if (status != NATS_OK) fail("jetstream", status);
    jsStreamConfig config;
    jsStreamConfig_Init(&config);
    config.Name = stream;
    config.Subjects = &subject;
    config.SubjectsLen = 1;
    config.Storage = js_FileStorage;
    jsErrCode code = 0;
    jsStreamInfo *info = NULL;
    status = js_AddStream(&info, js, &config, NULL, &code);
    if (status != NATS_OK && code != JSStreamNameExistErr) fail("add stream", status);
    if (info != NULL) jsStreamInfo_Destroy(info);
    char *payload = calloc(1, bytes > 0 ? bytes : 1);
    long long start = now_ns();
    long long run = start;
    for (long i = 0; i < count; i++) {
        if (!with_ids) {
            if ((status = js_PublishAsync(js, subject, payload, bytes, NULL)) != NATS_OK) fail("publish", status);
            continue;
        }
        /* As FareLens publishes a durable event: a message with its id in
         * Nats-Msg-Id (the server's dedupe), unique across runs. */
        char id[64];
        snprintf(id, sizeof id, "reference-%lld-%ld", run, i);
        natsMsg *message = NULL;
        if ((status = natsMsg_Create(&message, subject, NULL, payload, bytes)) != NATS_OK) fail("message", status);
        if ((status = natsMsgHeader_Set(message, "Nats-Msg-Id", id)) != NATS_OK) fail("header", status);
        if ((status = js_PublishMsgAsync(js, &message, NULL)) != NATS_OK) fail("publish", status);
    }
    jsPubOptions wait;
    jsPubOptions_Init(&wait);
    wait.MaxWait = 120000; /* every wait has a bound */
    if ((status = js_PublishAsyncComplete(js, &wait)) != NATS_OK) fail("complete", status);
    printf("%.1f\n", (double)(now_ns() - start) / (double)count);
    jsCtx_Destroy(js);
    natsConnection_Destroy(connection);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 2 && strcmp(argv[1], "version") == 0) { printf("%s\n", nats_GetVersion()); return 0; }
    if (argc >= 5 && strcmp(argv[1], "respond") == 0) return respond(argv[2], argv[3], atoi(argv[4]));
    if (argc >= 6 && strcmp(argv[1], "latency") == 0) return latency(argv[2], argv[3], atoi(argv[4]), atoi(argv[5]));
    if (argc >= 7 && strcmp(argv[1], "pipelined") == 0) return pipelined(argv[2], argv[3], atoi(argv[4]), atol(argv[5]), atoi(argv[6]));
    if (argc >= 7 && strcmp(argv[1], "jspublish") == 0) return jspublish(argv[2], argv[3], argv[4], atoi(argv[5]), atol(argv[6]), argc >= 8 && strcmp(argv[7], "ids") == 0);
    fprintf(stderr, "usage: nats-reference respond URL SUBJECT REPLY_BYTES | latency URL SUBJECT REQUEST_BYTES COUNT | pipelined URL SUBJECT REQUEST_BYTES TOTAL IN_FLIGHT\n");
    return 2;
}
