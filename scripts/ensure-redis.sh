#!/usr/bin/env bash
# Starts the machine's Redis on 127.0.0.1:6379 when it is down (the bench's BullMQ peer needs
# it; .ci/run calls this too). Same command the machine's own service start uses: nothing kept
# on disk.
set -euo pipefail
up() { (exec 3<>/dev/tcp/127.0.0.1/6379 && printf 'PING\r\n' >&3 && head -c 5 <&3 | grep -q PONG) 2>/dev/null; }
up && exit 0
mkdir -p /var/lib/redis /var/log/redis
redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log
for _ in $(seq 1 30); do up && exit 0; sleep 0.2; done
echo "Redis did not come up on 127.0.0.1:6379" >&2
exit 1
