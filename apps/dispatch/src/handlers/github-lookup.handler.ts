import {
  GithubOrgMembershipLookup,
  GithubRepositoryPermissionLookup,
  type RequestOf,
} from '@caravel/contracts';
import { ServeRequest } from '@caravel/messaging';
import { Controller, Inject } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { GithubLookupService } from '../services/github-lookup.service.js';

/** `dispatch.<id>.github-*`: the ingress's questions about GitHub people, asked as the App. */
@Controller()
export class GithubLookupHandler {
  constructor(@Inject(GithubLookupService) private readonly lookups: GithubLookupService) {}

  @ServeRequest(GithubOrgMembershipLookup)
  orgMembership(@Payload() request: RequestOf<typeof GithubOrgMembershipLookup>) {
    return this.lookups.orgMembership(request);
  }

  @ServeRequest(GithubRepositoryPermissionLookup)
  repositoryPermission(@Payload() request: RequestOf<typeof GithubRepositoryPermissionLookup>) {
    return this.lookups.repositoryPermission(request);
  }
}
