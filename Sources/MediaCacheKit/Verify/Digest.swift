import CCrypto

/// Hash algorithms a list's `checksum=` may name (aria2's, but Adler-32), plus SHA-256
/// for the index.
public enum DigestAlgorithm: String, Sendable, Codable, CaseIterable {
    case sha256 = "sha-256"
    case sha1 = "sha-1"
    case md5 = "md5"
    case sha224 = "sha-224"
    case sha384 = "sha-384"
    case sha512 = "sha-512"

    var hexLength: Int {
        switch self {
        case .sha256: 64
        case .sha1: 40
        case .md5: 32
        case .sha224: 56
        case .sha384: 96
        case .sha512: 128
        }
    }
}

/// Streaming digest over OpenSSL's EVP API (SHA extensions make SHA-256 ~1 GB/s here).
/// With `CryptoLibrary`, the only file that touches libcrypto.
final class Digest {
    private let context: OpaquePointer

    init(_ algorithm: DigestAlgorithm) {
        context = EVP_MD_CTX_new()
        let md: OpaquePointer? =
            switch algorithm {
            case .sha256: EVP_sha256()
            case .sha1: EVP_sha1()
            case .md5: EVP_md5()
            case .sha224: EVP_sha224()
            case .sha384: EVP_sha384()
            case .sha512: EVP_sha512()
            }
        EVP_DigestInit_ex(context, md, nil)
    }

    deinit { EVP_MD_CTX_free(context) }

    func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        EVP_DigestUpdate(context, base, bytes.count)
    }

    func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// The digest's bytes; the digest cannot be updated afterwards.
    func finalize() -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        EVP_DigestFinal_ex(context, &output, &length)
        return Array(output[0..<Int(length)])
    }

    /// The digest as lowercase hex; the digest cannot be updated afterwards.
    func finalizeHex() -> String { Self.hex(finalize()) }

    /// Lowercase hex in one allocation: a `String(radix:)` per byte cost more than
    /// hashing a small file.
    static func hex(_ bytes: [UInt8]) -> String {
        func digit(_ nibble: UInt8) -> UInt8 { nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10 }
        return String(unsafeUninitializedCapacity: bytes.count * 2) { buffer in
            var index = 0
            for byte in bytes {
                buffer[index] = digit(byte >> 4)
                buffer[index + 1] = digit(byte & 0x0F)
                index += 2
            }
            return index
        }
    }

    static func sha256Hex(_ string: String) -> String {
        sha256Hex(Array(string.utf8))
    }

    static func sha256Hex(_ bytes: [UInt8]) -> String {
        let digest = Digest(.sha256)
        digest.update(bytes)
        return digest.finalizeHex()
    }
}

/// Hashes a whole file in one streaming pass with every requested algorithm.
enum FileDigester {
    /// `observe` sees every block with its offset, in order (to hash a second layout).
    static func digest(
        _ file: DataFile, length: Int64, algorithms: Set<DigestAlgorithm>,
        observe: ((Int64, UnsafeRawBufferPointer) -> Void)? = nil
    ) throws -> [DigestAlgorithm: String] {
        let digests = algorithms.map { ($0, Digest($0)) }
        var offset: Int64 = 0
        try file.forEachBlock(length: length) { block in
            for (_, digest) in digests { digest.update(block) }
            observe?(offset, block)
            offset += Int64(block.count)
        }
        return Dictionary(uniqueKeysWithValues: digests.map { ($0.0, $0.1.finalizeHex()) })
    }
}
