# The installable C++ SDK (docs/client.md "Installing the SDK"):
#   cmake --install build --prefix P
# puts the client and builder headers, the generated wire-format headers
# and .proto files, and the static libraries they need under P, with a
# CMake package, so that an outside project does
#   find_package(anyshape REQUIRED)
#   target_link_libraries(app PRIVATE anyshape::client)   # or anyshape::builder
# None of it links LLVM or MLIR: only protobuf, gRPC (for the client) and
# xxhash, found through the package's own find_dependency calls.
include(CMakePackageConfigHelpers)
include(GNUInstallDirs)

set(ANYSHAPE_SDK_TARGETS anyshape_client anyshape_builder anyshape_graph
                         anyshape_service_proto anyshape_proto anyshape_support)
foreach(target ${ANYSHAPE_SDK_TARGETS})
  string(REPLACE "anyshape_" "" name ${target})
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${name})
endforeach()

install(TARGETS ${ANYSHAPE_SDK_TARGETS} EXPORT anyshapeTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/client/include/anyshape
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${CMAKE_BINARY_DIR}/proto/anyshape/v1/graph.pb.h
              ${CMAKE_BINARY_DIR}/proto/anyshape/v1/service.pb.h
              ${CMAKE_BINARY_DIR}/proto/anyshape/v1/service.grpc.pb.h
              ${CMAKE_SOURCE_DIR}/proto/anyshape/v1/graph.proto
              ${CMAKE_SOURCE_DIR}/proto/anyshape/v1/service.proto
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/anyshape/v1)
install(FILES ${CMAKE_SOURCE_DIR}/runtime/support/Status.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/anyshape/runtime/support)

set(ANYSHAPE_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/anyshape)
install(EXPORT anyshapeTargets NAMESPACE anyshape::
        DESTINATION ${ANYSHAPE_CMAKE_DIR})
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/anyshapeConfig.cmake.in
  ${CMAKE_BINARY_DIR}/anyshapeConfig.cmake INSTALL_DESTINATION ${ANYSHAPE_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/anyshapeConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/anyshapeConfig.cmake
              ${CMAKE_BINARY_DIR}/anyshapeConfigVersion.cmake
        DESTINATION ${ANYSHAPE_CMAKE_DIR})
