// A client that the fault tests kill with SIGKILL in the middle of a
// request (FaultTest.cpp): a separate process, so that what the server
// sees is what a crashed client leaves, a connection that dies, not a
// cancel the client sends.
//
//   anyshape-test-vanishing-client ADDRESS upload
//       declares a 64 MiB tensor, sends its first MiB, then waits forever
//   anyshape-test-vanishing-client ADDRESS execute REQUEST_FILE
//       sends the serialised ExecuteRequest in REQUEST_FILE and waits
//
// Prints "sent" on stdout once the request is on its way.
#include "anyshape/v1/service.grpc.pb.h"

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>

int main(int argc, char **argv) {
  using namespace anyshape;
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s ADDRESS upload|execute [REQUEST_FILE]\n",
                 argv[0]);
    return 2;
  }
  grpc::ChannelArguments args;
  args.SetMaxSendMessageSize(-1);
  auto stub = v1::AnyShape::NewStub(grpc::CreateCustomChannel(
      argv[1], grpc::InsecureChannelCredentials(), args));
  grpc::ClientContext context;
  std::string mode = argv[2];
  if (mode == "upload") {
    v1::UploadTensorResponse response;
    auto writer = stub->UploadTensor(&context, &response);
    v1::UploadTensorChunk chunk;
    chunk.set_dtype(v1::DTYPE_F32);
    chunk.add_shape(16 << 20);
    chunk.set_data(std::string(1 << 20, '\1'));
    if (!writer->Write(chunk))
      return 1;
    std::printf("sent\n");
    std::fflush(stdout);
    for (;;)
      std::this_thread::sleep_for(std::chrono::hours(1));
  }
  if (mode == "execute" && argc == 4) {
    std::ifstream in(argv[3], std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)),
                      std::istreambuf_iterator<char>());
    v1::ExecuteRequest request;
    if (!request.ParseFromString(bytes))
      return 1;
    std::printf("sent\n");
    std::fflush(stdout);
    v1::ExecuteResponse response;
    grpc::Status status = stub->Execute(&context, request, &response);
    std::printf("answered: %d\n", status.error_code());
    for (;;) // the test kills it before, during or after the run
      std::this_thread::sleep_for(std::chrono::hours(1));
  }
  std::fprintf(stderr, "unknown mode '%s'\n", mode.c_str());
  return 2;
}
