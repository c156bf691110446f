// ZipArchive
