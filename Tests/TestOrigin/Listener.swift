import Glibc

/// The listening socket and its accept loop.
enum Listener {
    /// Binds an IPv4 TCP listener; port 0 picks an ephemeral port. Returns the fd and the bound port.
    static func open(host: String, port: Int) throws -> (fd: Int32, port: Int) {
        guard (0...65535).contains(port) else { throw TestOriginError(description: "invalid port \(port)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port)).bigEndian
        let literal = host == "localhost" ? "127.0.0.1" : host
        guard inet_pton(AF_INET, literal, &address.sin_addr) == 1 else {
            throw TestOriginError(description: "not an IPv4 address: \(host)")
        }

        // CLOEXEC: tests spawn child processes, which must not inherit the listener.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw failure("socket") }
        var enable: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &enable, socklen_t(MemoryLayout<Int32>.size))
        // Non-blocking, so accept never hangs if a client vanishes between poll and accept.
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)

        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 128) == 0 else {
            let error = failure("bind/listen on \(host):\(port)")
            close(fd)
            throw error
        }

        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// Accepts until the registry stops, handing each client to `handle` on its own
    /// thread, then closes the listener.
    static func acceptLoop(
        fd: Int32, registry: ConnectionRegistry, handle: @escaping @Sendable (_ client: Int32, _ id: Int) -> Void
    ) {
        defer { close(fd) }
        while !registry.isStopped {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, Socket.pollSliceMilliseconds) > 0 else { continue }
            let client = accept(fd, nil, nil)
            if client < 0 {
                // EMFILE and the like: back off instead of spinning.
                if errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR && errno != ECONNABORTED {
                    usleep(10_000)
                }
                continue
            }
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            // Headers and body go out in separate sends; don't let Nagle delay them.
            var enable: Int32 = 1
            setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &enable, socklen_t(MemoryLayout<Int32>.size))
            guard let id = registry.register(client) else {
                close(client)
                break
            }
            registry.spawn { handle(client, id) }
        }
    }

    private static func failure(_ what: String) -> TestOriginError {
        TestOriginError(description: "\(what): \(String(cString: strerror(errno)))")
    }
}
