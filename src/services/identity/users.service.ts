// Users of an organization. Passwords are argon2id hashes.
import argon2 from 'argon2';
import { ARGON2_OPTIONS } from '../../lib/crypto.js';
import { NotFoundError, ValidationError } from '../../lib/errors.js';
import type { IdentityRepository } from './identity.repository.js';
import type { Principal } from './principal.js';

export interface UserView {
  id: number;
  organizationId: number;
  email: string;
  name: string;
  role: 'admin' | 'member';
  isActive: boolean;
  created: Date;
  updated: Date;
}

export function toUserView(u: {
  id: number;
  organizationId: number;
  email: string;
  name: string;
  role: string;
  isActive: boolean;
  created: Date;
  updated: Date;
}): UserView {
  return {
    id: u.id,
    organizationId: u.organizationId,
    email: u.email,
    name: u.name,
    role: u.role === 'admin' ? 'admin' : 'member',
    isActive: u.isActive,
    created: u.created,
    updated: u.updated,
  };
}

export function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, ARGON2_OPTIONS);
}

export function createUsersService(deps: { repo: IdentityRepository }) {
  const { repo } = deps;
  return {
    async create(
      organizationId: number,
      input: { email: string; name?: string; role?: 'admin' | 'member'; password?: string },
    ): Promise<UserView> {
      const email = input.email.trim().toLowerCase();
      if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw new ValidationError('email is not a valid address.');
      if (input.password !== undefined && input.password.length < 8)
        throw new ValidationError('password must be at least 8 characters.');
      // A taken email is the unique key's 409, translated in the data layer (src/db/prisma.ts).
      const user = await repo.createUser({
        organizationId,
        email,
        name: input.name?.trim() || email,
        role: input.role ?? 'member',
        passwordHash: input.password ? await hashPassword(input.password) : null,
      });
      return toUserView(user);
    },
    async list(actor: Principal): Promise<UserView[]> {
      return (await repo.listUsers(actor.organizationId)).map(toUserView);
    },
    async get(actor: Principal, userId: number): Promise<UserView> {
      const user = await repo.findUserById(userId);
      if (!user || user.organizationId !== actor.organizationId)
        throw new NotFoundError(`User ${userId} was not found.`);
      return toUserView(user);
    },
  };
}
export type UsersService = ReturnType<typeof createUsersService>;
