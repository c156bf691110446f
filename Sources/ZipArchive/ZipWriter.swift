internal import CZip

/// Builds a zip archive in memory through libzip's write API: entries stored uncompressed, in
/// the order given, each with a modification time and Unix mode `0644` regular file.
public enum ZipWriter {
    /// One file to put into the archive.
    public struct Entry: Sendable, Hashable {
        /// The name inside the archive.
        public let name: String
        /// The contents, stored as they are.
        public let bytes: [UInt8]

        /// Makes an entry.
        public init(name: String, bytes: [UInt8]) {
            self.name = name
            self.bytes = bytes
        }
    }

    /// The zip bytes holding `entries` in order, every entry stored (method 0) with time `modified`
    /// (seconds since 1970; the zip format keeps local time with 2-second steps).
    ///
    /// The corresponding C functions are `zip_source_buffer_create`, `zip_open_from_source`,
    /// `zip_file_add`, `zip_set_file_compression`, `zip_file_set_mtime`,
    /// `zip_file_set_external_attributes`, `zip_close` and `zip_source_read`.
    public static func archive(_ entries: [Entry], modified: Int) throws(ZipError) -> [UInt8] {
        var error = zip_error_t()
        zip_error_init(&error)
        defer { zip_error_fini(&error) }
        guard let target = zip_source_buffer_create(nil, 0, 0, &error) else {
            throw ZipError(.damaged, message: "cannot make a zip archive: \(String(cString: zip_error_strerror(&error)))")
        }
        // Keep the buffer source alive after zip_close, to read the result from it.
        zip_source_keep(target)
        defer { zip_source_free(target) }
        guard let archive = zip_open_from_source(target, ZIP_TRUNCATE, &error) else {
            zip_source_free(target)  // the reference zip_open_from_source did not take
            throw ZipError(.damaged, message: "cannot make a zip archive: \(String(cString: zip_error_strerror(&error)))")
        }
        func fail(_ what: String) -> ZipError {
            let text = String(cString: zip_error_strerror(zip_get_error(archive)))
            zip_discard(archive)
            return ZipError(.damaged, message: "cannot make a zip archive: \(what) (\(text))")
        }
        // libzip reads each entry's data only in zip_close: a copy lives until this function returns
        // (after zip_close or zip_discard), and libzip is told not to free it.
        var copies: [UnsafeMutableRawPointer] = []
        defer { for copy in copies { copy.deallocate() } }
        for entry in entries {
            let copy = UnsafeMutableRawPointer.allocate(byteCount: max(entry.bytes.count, 1), alignment: 1)
            copies.append(copy)
            entry.bytes.withUnsafeBytes { raw in
                if let base = raw.baseAddress { copy.copyMemory(from: base, byteCount: raw.count) }
            }
            guard let source = zip_source_buffer(archive, copy, UInt64(entry.bytes.count), 0) else { throw fail(entry.name) }
            let index = zip_file_add(archive, entry.name, source, ZIP_FL_ENC_UTF_8)
            guard index >= 0 else {
                zip_source_free(source)
                throw fail(entry.name)
            }
            let unixRegularFile644: UInt32 = 0o100644 << 16
            guard zip_set_file_compression(archive, UInt64(index), ZIP_CM_STORE, 0) == 0,
                zip_file_set_mtime(archive, UInt64(index), time_t(modified), 0) == 0,
                zip_file_set_external_attributes(archive, UInt64(index), 0, UInt8(ZIP_OPSYS_UNIX), unixRegularFile644) == 0
            else { throw fail(entry.name) }
        }
        guard zip_close(archive) == 0 else { throw fail("writing") }
        return try read(target)
    }

    private static func read(_ source: OpaquePointer) throws(ZipError) -> [UInt8] {
        var info = zip_stat_t()
        zip_stat_init(&info)
        guard zip_source_stat(source, &info) == 0, zip_source_open(source) == 0 else {
            throw ZipError(.damaged, message: "cannot read back the zip archive just made")
        }
        defer { zip_source_close(source) }
        var bytes = [UInt8](repeating: 0, count: Int(info.size))
        var filled = 0
        while filled < bytes.count {
            // A non-optional pointer: libzip 1.11 (Debian 13, make deb-arm64) declares the buffer
            // non-null, 1.7 (Debian 12) nullable; `bytes` is not empty here, so the base exists.
            let count = bytes.withUnsafeMutableBytes { out -> Int64 in
                guard let base = out.baseAddress else { return -1 }
                return zip_source_read(source, base + filled, UInt64(out.count - filled))
            }
            guard count > 0 else { throw ZipError(.damaged, message: "cannot read back the zip archive just made") }
            filled += Int(count)
        }
        return bytes
    }
}
