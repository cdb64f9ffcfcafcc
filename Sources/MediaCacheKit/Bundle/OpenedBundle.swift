/// A bundle whose manifest has been read and checked, ready for `BundleImporter`.
/// Opening is the step that tells a bundle that cannot be used at all (not a readable
/// archive, no or a malformed manifest, a newer format: an input error, nothing
/// imported) from one with bad entries (each rejected while importing).
public final class OpenedBundle {
    let reader: BundleReader

    /// `name` is the bundle as the user named it, for messages.
    public init(path: String, name: String) throws(BundleError) {
        reader = try BundleReader(path: path, name: name)
    }

    public var manifest: BundleManifest { reader.manifest }
}
