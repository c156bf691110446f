internal import CZip

/// Owns one open libzip archive and the copy of the bytes it reads from; frees both in `deinit`.
///
/// Every call into libzip goes through this class. libzip archives are not thread safe, so a
/// handle is used by one ``ZipArchive`` value on one thread at a time.
final class ZipHandle {
    /// The archive. Owns the zip source, which reads from `buffer`.
    private let archive: OpaquePointer
    /// Our copy of the zip bytes; must outlive `archive`.
    private let buffer: UnsafeMutableRawBufferPointer

    /// Opens `bytes` as a zip archive, read-only, by default with libzip's consistency checks.
    ///
    /// With the checks on, libzip refuses duplicate names without saying which one: that case
    /// throws `.duplicateName(name: "")` so the caller can reopen without checks to find it.
    /// The corresponding C functions are `zip_source_buffer_create` and `zip_open_from_source`.
    init(bytes: [UInt8], checkConsistency: Bool = true) throws(ZipError) {
        guard !bytes.isEmpty else { throw ZipError(.notAZip, message: "the file is empty, not a zip archive") }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
        buffer.copyBytes(from: bytes)

        var error = zip_error_t()
        zip_error_init(&error)
        defer { zip_error_fini(&error) }
        guard let source = zip_source_buffer_create(buffer.baseAddress, UInt64(buffer.count), 0, &error) else {
            buffer.deallocate()
            throw ZipError(.damaged, message: "cannot read the zip archive: \(Self.text(of: &error))")
        }
        guard let archive = zip_open_from_source(source, ZIP_RDONLY | (checkConsistency ? ZIP_CHECKCONS : 0), &error) else {
            // On failure the source still belongs to us.
            zip_source_free(source)
            buffer.deallocate()
            let code = zip_error_code_zip(&error)
            let text = Self.text(of: &error)
            if code == ZIP_ER_NOZIP {
                // libzip's own text here is "Not a zip archive": no detail worth repeating.
                let startsLikeZip = bytes.starts(with: [0x50, 0x4B, 0x03, 0x04])
                throw startsLikeZip
                    ? ZipError(.truncated, message: "the zip archive is truncated (its central directory is missing)")
                    : ZipError(.notAZip, message: "not a zip archive")
            }
            if code == ZIP_ER_EXISTS {
                throw ZipError(.duplicateName(name: ""), message: "a name appears twice in the zip archive")
            }
            throw ZipError(.damaged, message: "the zip archive is damaged (\(text))")
        }
        self.archive = archive
        self.buffer = buffer
    }

    deinit {
        // Read-only: nothing to write back, so discard rather than close.
        zip_discard(archive)
        buffer.deallocate()
    }

    /// The number of entries in the central directory. The corresponding C function is `zip_get_num_entries`.
    var entryCount: Int { Int(clamping: zip_get_num_entries(archive, 0)) }

    /// The name and declared (uncompressed) size of entry `index`.
    ///
    /// The corresponding C function is `zip_stat_index`.
    func stat(at index: Int) throws(ZipError) -> (name: String, size: UInt64) {
        var info = zip_stat_t()
        zip_stat_init(&info)
        guard zip_stat_index(archive, UInt64(index), 0, &info) == 0, let cName = info.name else {
            throw ZipError(.damaged, message: "the zip archive is damaged (entry \(index): \(archiveErrorText()))")
        }
        guard info.valid & UInt64(ZIP_STAT_SIZE) != 0 else {
            throw ZipError(.damaged, message: "the zip archive is damaged (entry \(index) has no size)")
        }
        return (String(decoding: Self.bytes(of: cName), as: UTF8.self), info.size)
    }

    /// Reads entry `index`, expecting exactly `declared` bytes, and reading at most one more.
    ///
    /// The corresponding C functions are `zip_fopen_index`, `zip_fread` and `zip_fclose`.
    func read(at index: Int, name: String, declared: UInt64) throws(ZipError) -> [UInt8] {
        guard let file = zip_fopen_index(archive, UInt64(index), 0) else {
            throw ZipError(.unreadableEntry(name: name), message: "\(name): cannot read the entry (\(archiveErrorText()))")
        }
        defer { zip_fclose(file) }
        // One byte more than declared, so that an entry producing extra data is noticed.
        // Callers check `declared` against their limit first; this guard only keeps the
        // arithmetic from trapping on a limit as large as Int.max.
        guard declared < UInt64(Int.max) else {
            throw ZipError(
                .entryTooLarge(name: name, size: declared, limit: Int.max - 1),
                message: "\(name): the entry declares \(declared) bytes, too many to read")
        }
        let capacity = Int(declared) + 1
        var bytes = [UInt8](repeating: 0, count: capacity)
        var filled = 0
        var failure: String? = nil
        bytes.withUnsafeMutableBytes { out in
            while filled < capacity, let base = out.baseAddress {
                let count = zip_fread(file, base + filled, UInt64(capacity - filled))
                if count < 0 {
                    // The error belongs to `file` (freed by zip_fclose): read its text in place,
                    // since a copy would own, and leak, the string that zip_error_strerror makes.
                    // Typed as optional: libzip 1.7 (Debian 12) declares the result nullable, 1.11
                    // (Debian 13, make deb-arm64) non-null, and this line compiles against both.
                    let error: UnsafeMutablePointer<zip_error_t>? = zip_file_get_error(file)
                    failure = error.map { String(cString: zip_error_strerror($0)) } ?? "unknown error"
                    return
                }
                if count == 0 { return }
                filled += Int(count)
            }
        }
        if UInt64(filled) > declared || (failure == nil && UInt64(filled) != declared) {
            throw ZipError(
                .sizeMismatch(name: name, declared: declared, actual: UInt64(filled)),
                message: "\(name): the entry declares \(declared) bytes but \(filled == capacity ? "holds more" : "holds \(filled)")"
            )
        }
        if let failure {
            throw ZipError(.unreadableEntry(name: name), message: "\(name): cannot read the entry (\(failure))")
        }
        bytes.removeLast()
        return bytes
    }

    private func archiveErrorText() -> String {
        String(cString: zip_error_strerror(zip_get_error(archive)))
    }

    private static func text(of error: inout zip_error_t) -> String {
        String(cString: zip_error_strerror(&error))
    }

    private static func bytes(of cString: UnsafePointer<CChar>) -> [UInt8] {
        var result: [UInt8] = []
        var pointer = cString
        while pointer.pointee != 0 {
            result.append(UInt8(bitPattern: pointer.pointee))
            pointer += 1
        }
        return result
    }
}
