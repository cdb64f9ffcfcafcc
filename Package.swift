// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "mediacache",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "mediacache", targets: ["mediacache"]),
        .executable(name: "demo-origin", targets: ["DemoOrigin"]),
        .executable(name: "bench-inspect", targets: ["BenchInspect"]),
        .library(name: "MediaCacheKit", targets: ["MediaCacheKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.70.0"),
        // Hummingbird's own; named for `serve`'s ServiceGroup (a shutdown asked for before it runs is kept).
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
    ],
    targets: [
        // C libraries, imported through module maps; apt names the -dev packages.
        .systemLibrary(
            name: "CCurl", path: "Sources/CCurl", pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(
            name: "CArchive", path: "Sources/CArchive", pkgConfig: "libarchive",
            providers: [.apt(["libarchive-dev"])]),
        .systemLibrary(
            name: "CCrypto", path: "Sources/CCrypto", pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]),
        // Typed wrappers for what Swift cannot import: variadic curl calls, _GNU_SOURCE syscalls.
        .target(name: "CShims", dependencies: ["CCurl"], path: "Sources/CShims"),

        .target(
            name: "MediaCacheKit",
            dependencies: [
                "CCurl", "CShims", "CArchive", "CCrypto",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        // `serve`: the local HTTP endpoint over the cache and downloads in progress.
        .target(
            name: "MediaCacheServe",
            dependencies: [
                "MediaCacheKit", .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        .executableTarget(
            name: "mediacache",
            dependencies: [
                "MediaCacheKit", "MediaCacheServe",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            // What a run keeps resident (the release binary is statically linked with the
            // Swift runtime): the toolchain's lld packs the 120,000 relative relocations
            // the loader would read into a few KiB (DT_RELR, glibc 2.36), no symbol of the
            // binary is exported (the static-stdlib link asks for -export-dynamic; nothing
            // here loads code that links against it), and the functions a run calls are
            // laid out together (Scripts/link-order). Idle RSS 33 -> 26 MiB.
            linkerSettings: [
                .unsafeFlags(
                    ["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-Xlinker", "--no-export-dynamic",
                     "-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/Scripts/packaging/link-order.txt",
                     "-Xlinker", "--no-warn-symbol-ordering",
                     "-Xlinker", "-T", "-Xlinker", "\(Context.packageDirectory)/Scripts/packaging/link-layout.ld"],
                    .when(platforms: [.linux], configuration: .release))
            ]),

        // A scripted, misbehaving HTTP origin for tests and the README demo.
        .target(name: "TestOrigin", path: "Tests/TestOrigin"),
        .executableTarget(name: "DemoOrigin", dependencies: ["TestOrigin"], path: "Tests/DemoOrigin"),
        // Runs a program under a given RLIMIT_NOFILE (setrlimit, then exec).
        .executableTarget(name: "WithFileLimit", path: "Tests/WithFileLimit"),
        // Reads MP4 boxes and job states with the engine's code for Benchmarks/run.
        .executableTarget(name: "BenchInspect", dependencies: ["MediaCacheKit"], path: "Benchmarks/Inspect"),
        // Helpers both test targets use (a seeded random generator).
        .target(name: "TestSupport", path: "Tests/TestSupport"),

        .testTarget(name: "MediaCacheKitTests", dependencies: ["MediaCacheKit", "TestSupport", "CCurl", "CShims"]),
        // The command line's own logic (config file, manual rendering) and serve's connection
        // bookkeeping, without running either.
        .testTarget(
            name: "mediacacheTests",
            dependencies: ["mediacache", "MediaCacheServe", .product(name: "NIOEmbedded", package: "swift-nio")]),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["MediaCacheKit", "TestOrigin", "TestSupport", "mediacache", "WithFileLimit"],
            // Run by the tests with python3 from the source tree, not built.
            exclude: ["Support/chromium-page.py"]),
    ]
)
