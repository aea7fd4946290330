// The official NATS C client (libnats-dev, Apache-2.0), used by FareLensNATS.
#include <nats/nats.h>
