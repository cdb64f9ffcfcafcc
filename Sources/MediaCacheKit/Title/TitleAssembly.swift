/// A title arriving from elsewhere (a bundle, the tier), checked as it comes: its
/// `title.json` first, against the SHA-256 and size the sender vouched for, then each
/// member against `title.json`. Pure: it decides, the caller writes. Nothing it accepts
/// can lead a write outside the title's directory or leave a member unchecked.
struct TitleAssembly {
    let manifest: TitleManifest
    let manifestBytes: [UInt8]
    private let expected: [String: TitleManifest.Member]
    private(set) var received: Set<String> = []

    /// Why a title (or one member of it) cannot be taken.
    enum Problem: Error, Equatable, CustomStringConvertible {
        case manifestHash(actual: String, expected: String)
        case manifestUnreadable(String)
        case sizeMismatch(listed: Int64, expected: Int64)
        case largerThanVouched(expected: Int64)
        case unsafePath(String)
        case duplicatePath(String)
        case pathConflict(String)
        case entryNotListed(String)
        case notListed(String)
        case receivedTwice(String)
        case memberSize(String, actual: Int64, listed: Int64)
        case memberHash(String, actual: String, listed: String)
        case missing(String)

        var description: String {
            switch self {
            case .manifestHash(let actual, let expected):
                "\(TitleManifest.fileName) has SHA-256 \(actual), expected \(expected)"
            case .manifestUnreadable(let reason): "\(TitleManifest.fileName) cannot be read: \(reason)"
            case .sizeMismatch(let listed, let expected):
                "\(TitleManifest.fileName) lists \(listed) bytes in all, expected \(expected)"
            case .largerThanVouched(let expected):
                "\(TitleManifest.fileName) lists more than the \(expected) bytes expected"
            case .unsafePath(let path):
                "\(TitleManifest.fileName) lists \(Printable.name(path)), not a plain path inside the title"
            case .duplicatePath(let path): "\(TitleManifest.fileName) lists \(Printable.name(path)) twice"
            case .pathConflict(let path):
                "\(TitleManifest.fileName) lists \(Printable.name(path)) both as a file and as a folder"
            case .entryNotListed(let entry):
                "\(TitleManifest.fileName) names the entry playlist \(Printable.name(entry)), which is not one of its files"
            case .notListed(let path): "member \(Printable.name(path)) is not listed in \(TitleManifest.fileName)"
            case .receivedTwice(let path): "member \(Printable.name(path)) appears twice"
            case .memberSize(let path, let actual, let listed):
                "member \(Printable.name(path)) holds \(actual) bytes, \(TitleManifest.fileName) says \(listed)"
            case .memberHash(let path, let actual, let listed):
                "member \(Printable.name(path)) has SHA-256 \(actual), \(TitleManifest.fileName) says \(listed)"
            case .missing(let path): "member \(Printable.name(path)) listed in \(TitleManifest.fileName) is missing"
            }
        }
    }

    /// Checks `bytes` as the title's `title.json`: its SHA-256 and total size are what
    /// the sender vouched for; every member path is plain, relative and unique; the entry
    /// playlist is the one its format uses and is one of the members.
    init(manifestBytes bytes: [UInt8], sha256: String, size: Int64) throws(Problem) {
        let actual = Digest.sha256Hex(bytes)
        guard actual == sha256 else { throw .manifestHash(actual: actual, expected: sha256) }
        let manifest: TitleManifest
        do {
            manifest = try TitleManifest.decode(bytes, path: TitleManifest.fileName)
        } catch {
            throw .manifestUnreadable("\(error)")
        }
        var byPath: [String: TitleManifest.Member] = [:]
        for member in manifest.members {
            guard TitleOnDisk.isSafeMemberPath(member.path), member.path != TitleManifest.fileName, member.size >= 0 else {
                throw .unsafePath(member.path)
            }
            guard byPath.updateValue(member, forKey: member.path) == nil else { throw .duplicatePath(member.path) }
        }
        // `a` and `a/b` cannot both be files: one would have to be a folder.
        for path in byPath.keys where TitleOnDisk.folders(of: path).contains(where: { byPath[$0] != nil }) {
            throw .pathConflict(path)
        }
        let entry = TitleLayout.entry(for: manifest.format)
        guard manifest.entry == entry, byPath[entry] != nil else { throw .entryNotListed(manifest.entry) }
        var total = Int64(bytes.count)
        for member in manifest.members {
            guard member.size <= size - total else { throw .largerThanVouched(expected: size) }
            total += member.size
        }
        guard total == size else { throw .sizeMismatch(listed: total, expected: size) }
        self.manifest = manifest
        manifestBytes = bytes
        expected = byPath
    }

    /// The listing of a member about to arrive, which it must match.
    mutating func begin(_ path: String) throws(Problem) -> TitleManifest.Member {
        guard let member = expected[path] else { throw .notListed(path) }
        guard received.insert(path).inserted else { throw .receivedTwice(path) }
        return member
    }

    /// Checks what arrived for `member`.
    static func check(_ member: TitleManifest.Member, size: Int64, sha256: String) throws(Problem) {
        guard size == member.size else { throw .memberSize(member.path, actual: size, listed: member.size) }
        guard sha256 == member.sha256 else { throw .memberHash(member.path, actual: sha256, listed: member.sha256) }
    }

    /// The first member listed that has not arrived, if any.
    var firstMissing: String? {
        manifest.members.first { !received.contains($0.path) }?.path
    }
}
