// SPDX-License-Identifier: GPL-3.0-or-later
/* gpufft-spectrum: output files (rows written to the named file as they
 * come, or a whole file renamed into place; every write checked) and the
 * checks before a run: every output writable, no two on one file, none on
 * an input. docs/receiver.md, "What is on disk when", is the policy. */
#include "app.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

namespace gpufft_app {

namespace {

// The creation mode a plain fopen() would give: 0666 less the umask.
mode_t file_mode()
{
    static const mode_t mode = [] {
        const mode_t mask = ::umask(022);
        ::umask(mask);
        return mode_t(0666 & ~mask);
    }();
    return mode;
}

//! Creates a temporary file (".NAME.XXXXXX") in `path`'s directory and sets `temp` to its name; -1 and errno
//! on failure.
int create_temp(const std::string& path, std::string& temp)
{
    const auto slash = path.rfind('/');
    const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
    const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
    temp = dir + "." + name + ".XXXXXX";
    const int fd = ::mkstemp(temp.data());
    if (fd >= 0)
        ::fchmod(fd, file_mode());
    return fd;
}

} // namespace

std::string follow_links(std::string path)
{
    // As the kernel does (at most 40 links), a dangling last one included.
    for (int hops = 0; hops < 40; ++hops) {
        struct stat st;
        if (::lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode))
            return path;
        std::string target(std::size_t(st.st_size > 0 ? st.st_size : 4096) + 1, '\0');
        const ssize_t got = ::readlink(path.c_str(), target.data(), target.size());
        if (got < 0 || std::size_t(got) >= target.size())
            return path;
        target.resize(std::size_t(got));
        const auto slash = path.rfind('/');
        path = target.front() == '/' || slash == std::string::npos ? target : path.substr(0, slash + 1) + target;
    }
    return path;
}

output_file::output_file(const std::string& path, kind k) : d_path(path)
{
    if (path == "-") {
        d_file = stdout;
        return;
    }
    const auto fail = [&] { throw output_error(path + ": cannot write: " + std::strerror(errno)); };
    struct stat st;
    const bool exists = ::stat(path.c_str(), &st) == 0;
    if (exists && S_ISDIR(st.st_mode))
        throw output_error(path + ": cannot write: it is a directory");
    int fd = -1;
    if (exists && !S_ISREG(st.st_mode)) { // a FIFO or a device: written as it is, never emptied or renamed
        fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
        d_emptied = true;
    } else if (k == kind::streamed) {
        // Created now (a bad path fails before the run measures anything),
        // emptied at the first write (a run that writes nothing leaves an
        // existing file as it was).
        d_target = follow_links(path);
        fd = ::open(d_target.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, file_mode());
        d_created = fd >= 0;
        if (fd < 0 && errno == EEXIST)
            fd = ::open(d_target.c_str(), O_WRONLY | O_CLOEXEC);
    } else {
        // The whole file under a temporary name beside the file a link
        // names (the link stays a link), renamed over it at commit(), with
        // an existing file's mode.
        d_target = follow_links(path);
        fd = create_temp(d_target, d_temp);
        if (fd >= 0 && ::stat(d_target.c_str(), &st) == 0 && S_ISREG(st.st_mode))
            ::fchmod(fd, st.st_mode & 07777);
        d_emptied = true;
    }
    if (fd < 0)
        fail();
    d_file = ::fdopen(fd, "w");
    if (!d_file) {
        const int err = errno;
        ::close(fd);
        if (!d_temp.empty())
            ::unlink(d_temp.c_str());
        errno = err;
        fail();
    }
    // A row or block up to this size reaches the file in one write at flush():
    // a hard kill leaves no row of it half written.
    if (k == kind::streamed)
        std::setvbuf(d_file, nullptr, _IOFBF, streamed_buffer);
}

output_file::~output_file()
{
    if (d_file && d_file != stdout) {
        // A file this run created and never wrote to: no output.
        struct stat mine, named;
        if (d_created && !d_emptied && ::fstat(fileno(d_file), &mine) == 0 &&
            ::stat(d_target.c_str(), &named) == 0 && mine.st_dev == named.st_dev && mine.st_ino == named.st_ino)
            ::unlink(d_target.c_str());
        std::fclose(d_file);
    }
    if (!d_temp.empty())
        ::unlink(d_temp.c_str());
}

std::FILE* output_file::get()
{
    if (!d_emptied && d_file != stdout) {
        d_emptied = true;
        if (::ftruncate(fileno(d_file), 0) != 0)
            throw output_error(d_path + ": cannot write: " + std::strerror(errno));
    }
    return d_file;
}

void output_file::check()
{
    if (!std::ferror(d_file))
        return;
    const int err = errno;
    if (d_file == stdout && err == EPIPE) { // the reader went away: stop quietly
        std::clearerr(d_file);
        request_stop(SIGPIPE);
        return;
    }
    throw output_error(d_path + ": write failed: " + std::strerror(err));
}

void output_file::flush()
{
    std::fflush(d_file); // a failure sets the error flag and errno for check()
    check();
}

void output_file::commit()
{
    get(); // a file committed empty is empty
    flush();
    if (d_file == stdout)
        return;
    std::FILE* f = d_file;
    d_file = nullptr;
    if (std::fclose(f) != 0)
        throw output_error(d_path + ": write failed: " + std::strerror(errno));
    if (!d_temp.empty()) {
        if (std::rename(d_temp.c_str(), d_target.c_str()) != 0)
            throw output_error(d_path + ": cannot rename " + d_temp + " into place: " + std::strerror(errno));
        d_temp.clear();
    }
}

void refuse_unwritable_outputs(const std::vector<std::pair<std::string, std::string>>& outputs)
{
    for (const auto& [option, path] : outputs) {
        if (path.empty() || path == "-" || path == "none")
            continue;
        const auto refuse = [&, &option = option, &path = path](const std::string& why) {
            throw usage_error(option + " " + path + ": cannot write: " + why);
        };
        const std::string target = follow_links(path);
        struct stat st;
        const bool exists = ::stat(target.c_str(), &st) == 0;
        if (exists && S_ISDIR(st.st_mode))
            refuse("it is a directory");
        if (exists && !S_ISREG(st.st_mode)) { // a FIFO or a device, opened when written
            if (::access(target.c_str(), W_OK) != 0)
                refuse(std::strerror(errno));
            continue;
        }
        // By its mode too: root may write anything, and a file made
        // read-only is kept from this program's runs as well.
        if (exists && !(st.st_mode & 0222))
            refuse("it is read-only");
        if (exists && ::access(target.c_str(), W_OK) != 0) // rows are written into the file itself
            refuse(std::strerror(errno));
        // As output_file will: a file in its directory (a temporary one, removed at once).
        std::string temp;
        const int fd = create_temp(target, temp);
        if (fd < 0)
            refuse(std::strerror(errno));
        ::close(fd);
        ::unlink(temp.c_str());
    }
}

namespace {

/*!
 * What an output path writes: its file (device and inode) if it exists, else
 * the name its directory resolves to; "" for the null device (what goes
 * there, from any number of outputs, is dropped).
 */
std::string output_identity(const std::string& path)
{
    if (path == "-")
        return "-";
    const std::string target = follow_links(path);
    struct stat st, null;
    if (::stat(target.c_str(), &st) == 0 && S_ISCHR(st.st_mode) && ::stat("/dev/null", &null) == 0 &&
        st.st_rdev == null.st_rdev)
        return "";
    if (::stat(target.c_str(), &st) == 0)
        return "inode " + std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
    std::error_code ec;
    return "path " + std::filesystem::weakly_canonical(std::filesystem::absolute(target, ec), ec).string();
}

} // namespace

void refuse_shared_outputs(const std::vector<std::pair<std::string, std::string>>& outputs)
{
    std::vector<std::string> ids(outputs.size());
    for (std::size_t i = 0; i < outputs.size(); ++i) {
        const auto& [option, path] = outputs[i];
        if (path.empty() || path == "none")
            continue;
        ids[i] = output_identity(path);
        for (std::size_t j = 0; j < i && !ids[i].empty(); ++j)
            if (ids[j] == ids[i]) {
                const std::string both = outputs[j].first + " " + outputs[j].second + " and " + option + " " + path;
                throw usage_error(path == "-" ? both + ": standard output takes one output at most"
                                              : both + " are the same file: give each output its own");
            }
    }
}

void refuse_overwriting_inputs(const std::vector<std::string>& inputs,
                               const std::vector<std::pair<std::string, std::string>>& outputs)
{
    for (const auto& [option, path] : outputs) {
        struct stat out;
        if (path.empty() || path == "-" || path == "none" || ::stat(path.c_str(), &out) != 0)
            continue;
        for (const auto& input : inputs) {
            struct stat in;
            const int got = input == "-" ? ::fstat(STDIN_FILENO, &in) : ::stat(input.c_str(), &in);
            if (got == 0 && in.st_dev == out.st_dev && in.st_ino == out.st_ino)
                throw usage_error(option + " " + path + " is the input " +
                                  (input == "-" ? "(standard input)" : input) + ": refusing to overwrite it");
        }
    }
}

} // namespace gpufft_app
