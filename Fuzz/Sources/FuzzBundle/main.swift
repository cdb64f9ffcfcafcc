import Foundation
import FuzzDriver
@testable import MediaCacheKit

/// Hostile bundles. The first byte chooses what the rest is:
/// 0: a manifest.json, packed into a tar with an entry for each object it lists;
/// 1: the whole bundle file (tar, or zstd-compressed tar);
/// 2: one archive entry name, for the path policy.
/// Import runs as a dry run into a cache that does not exist, so nothing is written.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    guard size > 0 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    switch data[0] % 3 {
    case 0:
        var members = [(EntryPathPolicy.manifestName, bytes)]
        if let manifest = try? BundleManifestCodec.decode(bytes, bundle: "fuzz") {
            for entry in manifest.entries.prefix(16) {
                members.append((entry.path, [UInt8](repeating: 0x5A, count: Int(min(entry.size, 4096)))))
            }
        }
        importDryRun(Tar.build(members))
    case 1:
        importDryRun(bytes)
    default:
        checkPathPolicy(bytes)
    }
    return 0
}

enum Scratch {
    static let bundlePath = "/dev/shm/mediacache-fuzz-\(getpid()).mcbundle"
    static let missingCache = CacheDirectory(root: "/dev/shm/mediacache-fuzz-\(getpid())-no-cache")
}

private func importDryRun(_ bundle: [UInt8]) {
    let bundlePath = Scratch.bundlePath, missingCache = Scratch.missingCache
    guard FileManager.default.createFile(atPath: bundlePath, contents: Data(bundle)) else {
        fatalError("cannot write \(bundlePath)")
    }
    defer { unlink(bundlePath) }
    do {
        let importer = try BundleImporter(cache: missingCache, options: ImportOptions(dryRun: true))
        let summary = try importer.importBundle(at: bundlePath, name: "fuzz")
        for rejection in summary.rejected { _ = rejection.description }
    } catch {
        _ = "\(error)"
    }
    precondition(!FileManager.default.fileExists(atPath: missingCache.root), "a dry run created the cache")
}

/// Whatever the policy accepts is exactly a name export would write.
private func checkPathPolicy(_ raw: [UInt8]) {
    switch EntryPathPolicy.classify(raw) {
    case .manifest:
        precondition(raw.elementsEqual(EntryPathPolicy.manifestName.utf8))
    case .object(let key, let ext):
        precondition(raw.elementsEqual(EntryPathPolicy.objectPath(key: key, extension: ext).utf8), "accepted \(raw)")
    case .titleMember(let key, let member):
        precondition(TitleOnDisk.isSafeMemberPath(member), "accepted member \(member)")
        precondition(raw.elementsEqual((EntryPathPolicy.titlePath(key: key) + "/" + member).utf8), "accepted \(raw)")
    case .rejected:
        break
    }
}

/// A minimal ustar writer (regular files only), so manifests reach the importer intact.
enum Tar {
    static func build(_ members: [(String, [UInt8])]) -> [UInt8] {
        var out: [UInt8] = []
        for (name, data) in members {
            var header = [UInt8](repeating: 0, count: 512)
            put(Array(name.utf8.prefix(100)), into: &header, at: 0)
            put(octal(0o644, width: 8), into: &header, at: 100)
            put(octal(0, width: 8), into: &header, at: 108)
            put(octal(0, width: 8), into: &header, at: 116)
            put(octal(data.count, width: 12), into: &header, at: 124)
            put(octal(1_700_000_000, width: 12), into: &header, at: 136)
            header[156] = UInt8(ascii: "0")
            put(Array("ustar\u{0}00".utf8), into: &header, at: 257)
            for index in 148..<156 { header[index] = 0x20 }
            put(octal(header.reduce(0) { $0 + Int($1) }, width: 7) + [0x20], into: &header, at: 148)
            out += header + data + [UInt8](repeating: 0, count: (512 - data.count % 512) % 512)
        }
        return out + [UInt8](repeating: 0, count: 1024)
    }

    private static func octal(_ value: Int, width: Int) -> [UInt8] {
        let digits = String(value, radix: 8)
        return Array((String(repeating: "0", count: max(0, width - 1 - digits.count)) + digits).utf8) + [0]
    }

    private static func put(_ bytes: [UInt8], into header: inout [UInt8], at offset: Int) {
        for (index, byte) in bytes.enumerated() { header[offset + index] = byte }
    }
}

exit(FuzzDriver_run(CommandLine.argc, CommandLine.unsafeArgv, fuzzOne))
