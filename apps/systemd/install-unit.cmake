# SPDX-License-Identifier: GPL-3.0-or-later
# Run by cmake --install (install(CODE) in CMakeLists.txt): the unit with the
# prefix of this install (--prefix and DESTDIR included), into
# lib/systemd/system under it, and the options file into etc/default unless
# one is there (its edits survive a reinstall). GPUFFT_BINDIR: bin, relative.
if(CMAKE_INSTALL_PREFIX STREQUAL "/usr")
    set(SYSCONFDIR /etc) # as GNUInstallDirs places it for /usr
else()
    set(SYSCONFDIR ${CMAKE_INSTALL_PREFIX}/etc)
endif()
set(BINDIR ${CMAKE_INSTALL_PREFIX}/${GPUFFT_BINDIR})
configure_file(${CMAKE_CURRENT_LIST_DIR}/gpufft-spectrum.service.in ${GPUFFT_UNIT_BUILD_DIR}/gpufft-spectrum.service @ONLY)
file(INSTALL ${GPUFFT_UNIT_BUILD_DIR}/gpufft-spectrum.service DESTINATION ${CMAKE_INSTALL_PREFIX}/lib/systemd/system)
if(EXISTS "$ENV{DESTDIR}${SYSCONFDIR}/default/gpufft-spectrum")
    message(STATUS "Kept: $ENV{DESTDIR}${SYSCONFDIR}/default/gpufft-spectrum")
else()
    file(INSTALL ${CMAKE_CURRENT_LIST_DIR}/gpufft-spectrum.default DESTINATION ${SYSCONFDIR}/default
         RENAME gpufft-spectrum)
endif()
