# Where the samples of an async-profiler collapsed-stack file went, by what the code was doing (bench/profile.sh).
# A stack counts for the innermost frame that names one of the parts below (so the TLS decryption that calls the
# whole HTTP pipeline keeps only its own share); JIT and GC threads count apart. Prints a Markdown table.
#   awk -f bench/breakdown.awk stacks.collapsed
BEGIN {
  n = 0
  part[++n] = "access log (logback, ExchangeLog)";   pattern[n] = "ch/qos/logback|ExchangeLog\\.finish|org/slf4j"
  part[++n] = "request metrics (Micrometer)";         pattern[n] = "io/micrometer|MirrorMetrics"
  part[++n] = "route parsing";                        pattern[n] = "RouteParser|ModuleRoutes|java/util/regex"
  part[++n] = "answering (handler, documents)";       pattern[n] = "MirrorHttpHandler|DocumentResponse|ProviderMirror|VersionDocuments|VersionLists|ArchiveResponse|AccessGate|ConditionalHeaders|QueryStringDecoder"
  part[++n] = "HTTP decoding";                        pattern[n] = "HttpObjectDecoder|HttpServerCodec\\$HttpServerRequestDecoder|HttpHeaders|DefaultHeaders"
  part[++n] = "HTTP encoding";                        pattern[n] = "HttpObjectEncoder|HttpServerCodec\\$HttpServerResponseEncoder"
  part[++n] = "aggregator, flow control, chunked writer"; pattern[n] = "MessageAggregator|HttpObjectAggregator|FlowControlHandler|ChunkedWriteHandler"
  part[++n] = "deadline, idle, keep-alive handlers";  pattern[n] = "IdleStateHandler|RequestReadDeadline|HttpServerKeepAliveHandler|ConnectionDiscipline"
  part[++n] = "timers (schedule, cancel)";            pattern[n] = "ScheduledFutureTask|AbstractScheduledEventExecutor|DefaultPriorityQueue"
  part[++n] = "leak detection (Netty's sampling)";    pattern[n] = "ResourceLeakDetector"
  part[++n] = "buffers (pooled allocator)";           pattern[n] = "PooledByteBufAllocator|PoolArena|PoolThreadCache|AbstractByteBufAllocator"
  part[++n] = "promises and listeners";               pattern[n] = "DefaultPromise|DefaultChannelPromise|PromiseNotificationUtil|DelegatingChannelPromiseNotifier"
  part[++n] = "pipeline dispatch";                    pattern[n] = "AbstractChannelHandlerContext|DefaultChannelPipeline|ChannelDuplexHandler|ChannelInboundHandlerAdapter|SimpleChannelInboundHandler|MessageToMessage|ByteToMessageDecoder"
  part[++n] = "TLS encryption (SslHandler.wrap, OpenSSL)"; pattern[n] = "SslHandler\\.wrap|ReferenceCountedOpenSslEngine\\.wrap"
  part[++n] = "socket writes (kernel)";               pattern[n] = "io/netty/channel/epoll/AbstractEpollStreamChannel\\.doWrite|io/netty/channel/epoll/AbstractEpollChannel\\.doWrite|io/netty/channel/unix/FileDescriptor\\.write|io/netty/channel/epoll/AbstractEpollStreamChannel\\.writeBytes"
  part[++n] = "TLS decryption (SslHandler.unwrap, OpenSSL)"; pattern[n] = "SslHandler\\.unwrap|SslHandler\\.decode|ReferenceCountedOpenSslEngine\\.unwrap"
  part[++n] = "socket reads (kernel)";                pattern[n] = "io/netty/channel/epoll/AbstractEpollChannel\\.doReadBytes|io/netty/channel/unix/FileDescriptor\\.read"
  part[++n] = "epoll_wait, waking event loops";       pattern[n] = "epollWait|epollBusyWait|EpollEventLoop\\.wakeup|eventfd"
  part[++n] = "event loop tasks";                     pattern[n] = "runAllTasks|SingleThreadEventExecutor|EpollEventLoop"
}
{
  count = $NF
  stack = substr($0, 1, length($0) - length($NF) - 1)
  total += count
  if (stack ~ /CompileBroker|C2Compiler|Compiler::compile|CompilerThread/) { bucket["JIT compiler threads"] += count; next }
  if (stack ~ /GCTaskThread|G1[A-Z]|ConcurrentGCThread|WorkerThread::run|GangWorker|VMThread/) { bucket["GC and VM threads"] += count; next }
  frames = split(stack, frame, ";")
  found = ""
  for (i = frames; i >= 1 && found == ""; i--) {
    for (p = 1; p <= n; p++) {
      if (frame[i] ~ pattern[p]) { found = part[p]; break }
    }
  }
  if (found == "") found = "other (threads outside the event loops, JVM)"
  bucket[found] += count
}
END {
  print "| part | share of samples |"
  print "| --- | ---: |"
  cmd = "sort -t'|' -k3 -gr"
  for (b in bucket) printf "| %s | %.1f%% |\n", b, 100 * bucket[b] / total | cmd
  close(cmd)
}
