import CArchive

/// The C libraries this build runs with, for `--version` and bug reports.
public enum LibraryVersions {
    public static var curl: String { TransferLoop.libcurlVersion }
    public static var archive: String { String(cString: archive_version_details()) }
}
