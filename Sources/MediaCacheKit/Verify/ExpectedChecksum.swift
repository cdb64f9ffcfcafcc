/// A checksum the list promises for the origin bytes (`checksum=sha-256=9f86...`).
public struct ExpectedChecksum: Sendable, Codable, Equatable, CustomStringConvertible {
    public let algorithm: DigestAlgorithm
    public let hex: String

    public init(algorithm: DigestAlgorithm, hex: String) {
        self.algorithm = algorithm
        self.hex = hex.lowercased()
    }

    /// Parses `ALGO=HEX`; aria2's spellings (`sha-256`, `sha256`, `SHA-1`, `md5`,
    /// `sha-512`...) are accepted.
    public init(parsing text: String) throws(ChecksumParseError) {
        guard let eq = text.firstIndex(of: "=") else { throw .missingEquals }
        let name = text[..<eq].lowercased().replacingOccurrences(of: "_", with: "-")
        let value = String(text[text.index(after: eq)...]).trimmingCharacters(in: .whitespaces)
        let algorithm: DigestAlgorithm
        guard let named = DigestAlgorithm.allCases.first(where: { $0.rawValue == name || $0.rawValue.replacingOccurrences(of: "-", with: "") == name })
        else { throw .unknownAlgorithm(String(text[..<eq])) }
        algorithm = named
        guard value.count == algorithm.hexLength,
            value.allSatisfy({ $0.isASCII && $0.isHexDigit })
        else { throw .badDigest(algorithm, value) }
        self.init(algorithm: algorithm, hex: value)
    }

    public var description: String { "\(algorithm.rawValue)=\(hex)" }
}

public enum ChecksumParseError: Error, Equatable, CustomStringConvertible {
    case missingEquals
    case unknownAlgorithm(String)
    case badDigest(DigestAlgorithm, String)

    public var description: String {
        switch self {
        case .missingEquals:
            "checksum must look like sha-256=HEX"
        case .unknownAlgorithm(let name):
            "unknown checksum algorithm '\(name)' (use sha-256, sha-512, sha-384, sha-224, sha-1 or md5)"
        case .badDigest(let algorithm, let value):
            "\(algorithm.rawValue) digest must be \(algorithm.hexLength) hex digits, got '\(value)'"
        }
    }
}

import Foundation

extension ExpectedChecksum {
    /// Whether `file`'s first `length` bytes have this digest (read in 4 MiB blocks).
    func matches(_ file: DataFile, length: Int64) throws -> Bool {
        let digest = Digest(algorithm)
        try file.forEachBlock(length: length, blockSize: 4 << 20) { digest.update($0) }
        return digest.finalizeHex() == hex
    }
}
