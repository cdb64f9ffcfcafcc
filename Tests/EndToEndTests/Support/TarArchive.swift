import Foundation

/// One tar member as the hostile-bundle tests rewrite it: any name, any type, any data.
struct TarMember: Equatable {
    enum Kind: UInt8 {
        case regular = 0x30  // '0'
        case hardLink = 0x31  // '1'
        case symbolicLink = 0x32  // '2'
        case characterDevice = 0x33  // '3'
        case blockDevice = 0x34  // '4'
        case directory = 0x35  // '5'
        case fifo = 0x36  // '6'
    }

    var name: String
    var kind: Kind = .regular
    var data: [UInt8] = []
    var linkName = ""
    var mode = 0o644
    /// A size for the header other than the data's (a lying header).
    var declaredSize: Int?
}

/// A minimal ustar reader and writer, so tests can take a genuine bundle apart and put a
/// tampered one together without trusting the code under test (libarchive) to do it.
enum TarArchive {
    /// The members of an uncompressed tar (pax extension headers are skipped: the
    /// bundles under test do not need them).
    static func members(of tar: [UInt8]) throws -> [TarMember] {
        var members: [TarMember] = []
        var offset = 0
        while offset + 512 <= tar.count {
            let header = Array(tar[offset..<offset + 512])
            if header.allSatisfy({ $0 == 0 }) { break }
            let size = Int(octal(header[124..<136]))
            let type = header[156]
            let dataStart = offset + 512
            guard dataStart + size <= tar.count else { throw TarError("member at \(offset) runs past the end") }
            let data = Array(tar[dataStart..<dataStart + size])
            offset = dataStart + (size + 511) / 512 * 512
            if type == UInt8(ascii: "x") || type == UInt8(ascii: "g") { continue }
            let prefix = string(header[345..<500])
            let name = string(header[0..<100])
            members.append(
                TarMember(
                    name: prefix.isEmpty ? name : prefix + "/" + name,
                    kind: TarMember.Kind(rawValue: type == 0 ? 0x30 : type) ?? .regular,
                    data: data, linkName: string(header[157..<257]), mode: Int(octal(header[100..<108]))))
        }
        return members
    }

    /// A ustar archive of `members`; `endMarker: false` leaves out the two zero blocks
    /// (an archive cut exactly between members).
    static func build(_ members: [TarMember], endMarker: Bool = true) -> [UInt8] {
        var out: [UInt8] = []
        for member in members {
            var header = [UInt8](repeating: 0, count: 512)
            var name = Array(member.name.utf8)
            if name.count > 100, let slash = name[..<min(name.count, 156)].lastIndex(of: UInt8(ascii: "/")) {
                put(Array(name[..<slash]), into: &header, at: 345, width: 155)
                name = Array(name[(slash + 1)...])
            }
            put(name, into: &header, at: 0, width: 100)
            put(octalField(member.mode, width: 8), into: &header, at: 100, width: 8)
            put(octalField(0, width: 8), into: &header, at: 108, width: 8)
            put(octalField(0, width: 8), into: &header, at: 116, width: 8)
            put(octalField(member.declaredSize ?? member.data.count, width: 12), into: &header, at: 124, width: 12)
            put(octalField(1_700_000_000, width: 12), into: &header, at: 136, width: 12)
            header[156] = member.kind.rawValue
            put(Array(member.linkName.utf8), into: &header, at: 157, width: 100)
            put(Array("ustar\u{0}00".utf8), into: &header, at: 257, width: 8)
            for index in 148..<156 { header[index] = 0x20 }
            let sum = header.reduce(0) { $0 + Int($1) }
            put(Array(String(sum, radix: 8).leftPadded(6).utf8) + [0, 0x20], into: &header, at: 148, width: 8)
            out += header
            out += member.data
            out += [UInt8](repeating: 0, count: (512 - member.data.count % 512) % 512)
        }
        if endMarker { out += [UInt8](repeating: 0, count: 1024) }
        return out
    }

    struct TarError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    private static func octal(_ field: ArraySlice<UInt8>) -> Int64 {
        field.reduce(into: Int64(0)) { value, byte in
            if (0x30...0x37).contains(byte) { value = value * 8 + Int64(byte - 0x30) }
        }
    }

    private static func string(_ field: ArraySlice<UInt8>) -> String {
        String(decoding: field.prefix { $0 != 0 }, as: UTF8.self)
    }

    private static func octalField(_ value: Int, width: Int) -> [UInt8] {
        Array(String(value, radix: 8).leftPadded(width - 1).utf8) + [0]
    }

    private static func put(_ bytes: [UInt8], into header: inout [UInt8], at offset: Int, width: Int) {
        for (index, byte) in bytes.prefix(width).enumerated() { header[offset + index] = byte }
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

/// The zstd command-line tool, to open and re-seal bundles in tests.
enum Zstd {
    static func decompress(_ bytes: [UInt8]) throws -> [UInt8] {
        try FilterTool.run("/usr/bin/zstd", ["-d", "-c", "-q"], bytes)
    }

    static func compress(_ bytes: [UInt8]) throws -> [UInt8] { try FilterTool.run("/usr/bin/zstd", ["-c", "-q", "-3"], bytes) }
}

/// gzip(1), to make a body that really is gzip-encoded.
enum Gzip {
    static func compress(_ bytes: [UInt8]) throws -> [UInt8] { try FilterTool.run("/bin/gzip", ["-c", "-n", "-1"], bytes) }
}

/// Runs a compressor on `input` (through a scratch file) and returns what it printed.
enum FilterTool {
    static func run(_ executable: String, _ arguments: [String], _ input: [UInt8]) throws -> [UInt8] {
        let scratch = NSTemporaryDirectory() + "filter-\(UUID().uuidString)"
        FileManager.default.createFile(atPath: scratch, contents: Data(input))
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments + [scratch]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw TarArchive.TarError("\(executable) \(arguments) failed")
        }
        return Array(data)
    }
}
