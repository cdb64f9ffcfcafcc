#if canImport(Glibc)
import Glibc
#endif

/// What `--listen ADDR:PORT` asks for, resolved to one numeric address.
///
/// The address is parsed as the kernel will read it (`getaddrinfo`), not compared as
/// text: `0`, `0x0`, `00.0.0.0` and `[::0]` are all the wildcard, `0x7f000001` is
/// 127.0.0.1. Only loopback is served unless the user says otherwise, and never every
/// interface at once: the Host check needs the one address requests must name.
public struct ListenSpec: Sendable, Equatable {
    /// Numeric, canonical (`127.0.0.1`, `::1`): what is bound and what Host must name.
    public let host: String
    public let port: Int
    public let isLoopback: Bool

    public enum Problem: Error, Equatable, CustomStringConvertible {
        case malformed(String)
        case unresolvable(String, reason: String)
        case wildcard(String)
        case notLoopback(String, address: String)

        public var description: String {
            switch self {
            case .malformed(let text):
                "--listen expects ADDR:PORT, like 127.0.0.1:8737, got '\(text)'"
            case .unresolvable(let host, let reason):
                "--listen: cannot resolve '\(host)': \(reason)"
            case .wildcard(let text):
                "--listen \(text) would listen on every interface; name one address (like 127.0.0.1:8737)"
            case .notLoopback(let text, let address):
                "--listen \(text) (\(address)) is not a loopback address: anyone who can reach it could play "
                    + "everything the cache holds; add --allow-remote if that is what you want"
            }
        }
    }

    /// `text` as `HOST:PORT` or `[V6]:PORT`; a non-loopback host only with `allowRemote`.
    public static func parse(_ text: String, allowRemote: Bool) throws(Problem) -> ListenSpec {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (0...65535).contains(port)
        else { throw .malformed(text) }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, !host.contains("%") else { throw .malformed(text) }
        let address = try resolve(host)
        if address.isWildcard { throw .wildcard(text) }
        if !address.isLoopback && !allowRemote { throw .notLoopback(text, address: address.text) }
        return ListenSpec(host: address.text, port: port, isLoopback: address.isLoopback)
    }

    private struct Address {
        var text: String
        var isLoopback: Bool
        var isWildcard: Bool
    }

    /// The first address `host` names (numeric forms included), in canonical text.
    private static func resolve(_ host: String) throws(Problem) -> Address {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0, let first = list else {
            throw .unresolvable(host, reason: String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(list) }
        var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        guard getnameinfo(first.pointee.ai_addr, first.pointee.ai_addrlen, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST) == 0
        else { throw .unresolvable(host, reason: "no numeric form") }
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        switch Int32(first.pointee.ai_family) {
        case AF_INET:
            let value = first.pointee.ai_addr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                UInt32(bigEndian: $0.pointee.sin_addr.s_addr)
            }
            return Address(text: text, isLoopback: value >> 24 == 127, isWildcard: value == 0)
        case AF_INET6:
            let bytes = first.pointee.ai_addr.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                withUnsafeBytes(of: pointer.pointee.sin6_addr) { Array($0) }
            }
            // ::ffff:a.b.c.d is the IPv4 address a.b.c.d.
            let mappedV4 = bytes.prefix(10).allSatisfy { $0 == 0 } && bytes[10] == 0xff && bytes[11] == 0xff
            let isLoopback = bytes == [UInt8](repeating: 0, count: 15) + [1] || (mappedV4 && bytes[12] == 127)
            let isWildcard = bytes.allSatisfy { $0 == 0 } || (mappedV4 && bytes.suffix(4).allSatisfy { $0 == 0 })
            return Address(text: text, isLoopback: isLoopback, isWildcard: isWildcard)
        default:
            throw .unresolvable(host, reason: "not an IP address")
        }
    }
}
